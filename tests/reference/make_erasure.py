#!/usr/bin/python3
"""Golden erasure effects (core/explain/erasure.h) of the fixture models'
greedy translations, computed with the PyTorch reference model
(models/recipe/transformer.py) independently of heed: for each source
piece that is not the tag or EOS, the source without it ("remove") or with
<unk> in its place ("unk") is encoded, the golden greedy output is
teacher-forced, and effect[t][j] is the original log-probability of target
piece t minus the erased one.

Run from the repository root:
  /usr/bin/python3 tests/reference/make_erasure.py
It reads tests/fixtures/tiny_{postnorm,prenorm}.{heed,json} and
tests/fixtures/tiny_spm.model, and writes tests/fixtures/tiny_*_erasure.json.
"""
import json
import os

import sentencepiece as spm
import torch

from fixture import FIXTURES, load


@torch.no_grad()
def forced(model, source, inputs, target):
    """log p(target_t | source, target_<t), one per step (double)."""
    memory, mask, _ = model.encode(torch.tensor([source]))
    logits, _, _ = model.decode(torch.tensor([inputs]), memory, mask)
    lp = torch.log_softmax(logits[0].double(), -1)
    return lp[torch.arange(len(target)), torch.tensor(target)]


def make(name):
    model, gold = load(name)
    sp = spm.SentencePieceProcessor(
        model_file=os.path.join(FIXTURES, "tiny_spm.model"))
    tags = {sp.piece_to_id(t) for t in model.config["target_tags"].values()}
    special = {sp.bos_id(), sp.eos_id(), sp.pad_id()} | tags
    out = []
    for b, source in enumerate(gold["sources"]):
        target = gold["greedy"][b]
        inputs = [sp.bos_id()] + target[:-1]
        base = forced(model, source, inputs, target)
        modes = {}
        for mode in ("remove", "unk"):
            effect = torch.zeros(len(target), len(source), dtype=torch.double)
            for j, piece in enumerate(source):
                if piece in special:
                    continue
                erased = (source[:j] + source[j + 1:] if mode == "remove"
                          else source[:j] + [sp.unk_id()] + source[j + 1:])
                effect[:, j] = base - forced(model, erased, inputs, target)
            modes[mode] = effect.round(decimals=6).tolist()
        out.append(modes)
    with open(os.path.join(FIXTURES, name + "_erasure.json"), "w") as f:
        json.dump({"sentences": out}, f, separators=(",", ":"))


if __name__ == "__main__":
    for fixture in ("tiny_postnorm", "tiny_prenorm"):
        make(fixture)
