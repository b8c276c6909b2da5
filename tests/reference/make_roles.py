#!/usr/bin/python3
"""Golden head roles (core/explain/head_roles.h) of the fixture models'
greedy translations, computed independently of heed: PyTorch's attention
maps of the reference model (models/recipe/transformer.py), teacher-forced
on the golden greedy output, and each head's statistics with NumPy from
their definitions in docs/heads.md. Rarity is the SentencePiece tools'
piece score; BOS, EOS, padding and the language tags are never rare.

Run from the repository root:
  /usr/bin/python3 tests/reference/make_roles.py
It reads tests/fixtures/tiny_{postnorm,prenorm}.{heed,json} and
tests/fixtures/tiny_spm.model, and writes tests/fixtures/tiny_*_roles.json.
"""
import json
import os

import numpy as np
import sentencepiece as spm
import torch

from fixture import FIXTURES, load

FIELDS = ("confidence", "previous", "same", "next", "rare", "boundary",
          "distance", "rows")


def head_role(w, causal, diagonal, boundary, rarity):
    """w (rows, cols) of one head -> its statistics."""
    rows, cols = w.shape
    sums = dict.fromkeys(FIELDS, 0.0)
    for i in range(rows):
        seen = i + 1 if causal else cols
        if seen < 2:
            continue
        row = w[i, :seen]
        if diagonal:
            p = i * (cols - 1) / (rows - 1) if rows > 1 else 0.0
        else:
            p = float(i)
        best = int(np.argmax(row))
        rarest = int(np.argmin(rarity[:seen]))
        offset = best - int(np.floor(p + 0.5))
        sums["confidence"] += float(row[best])
        sums["previous"] += offset == -1
        sums["same"] += offset == 0
        sums["next"] += offset == 1
        sums["rare"] += best == rarest and np.isfinite(rarity[rarest])
        sums["boundary"] += best == boundary
        sums["distance"] += float(np.sum(row * np.abs(np.arange(seen) - p)))
        sums["rows"] += 1
    n = sums["rows"]
    return {k: (v / n if k != "rows" and n else v) for k, v in sums.items()}


def roles(weights, causal, diagonal, boundary, rarity):
    """[layer][head] statistics of (layers of (1, H, rows, cols))."""
    return [[head_role(w[0, h].double().numpy(), causal, diagonal, boundary,
                       rarity) for h in range(w.shape[1])] for w in weights]


@torch.no_grad()
def make(name):
    model, gold = load(name)
    sp = spm.SentencePieceProcessor(
        model_file=os.path.join(FIXTURES, "tiny_spm.model"))
    bos = sp.bos_id()
    special = {bos, sp.eos_id(), sp.pad_id()}
    special |= {sp.piece_to_id(t) for t in model.config["target_tags"].values()}

    def rarity(ids):
        return np.array([np.inf if i in special else sp.get_score(i)
                         for i in ids])

    out = []
    for b, source in enumerate(gold["sources"]):
        output = gold["greedy"][b]
        inputs = [bos] + output[:-1]
        memory, mask, enc_w = model.encode(torch.tensor([source]), True)
        _, self_w, cross_w = model.decode(torch.tensor([inputs]), memory, mask,
                                          True)
        S = len(source)
        out.append({
            "encoder": roles(enc_w, False, False, S - 1, rarity(source)),
            "decoder": roles(self_w, True, False, 0, rarity(inputs)),
            "cross": roles(cross_w, False, True, S - 1, rarity(source))})
    with open(os.path.join(FIXTURES, name + "_roles.json"), "w") as f:
        json.dump({"sentences": out}, f, separators=(",", ":"))


if __name__ == "__main__":
    for fixture in ("tiny_postnorm", "tiny_prenorm"):
        make(fixture)
