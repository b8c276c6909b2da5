#!/usr/bin/python3
"""Builds the test fixtures: a tiny SentencePiece model, two tiny random
heed models (post-norm F32 and pre-norm F16) and their golden outputs from
the PyTorch reference (models/recipe/transformer.py).

Run from the repository root:  /usr/bin/python3 tests/reference/make_fixtures.py
[--only tiny_marian]
It reads a few thousand caption lines from ../shared/data to train the
tokeniser; the fixtures it writes to tests/fixtures/ are committed.
"""
import gzip
import json
import os
import subprocess
import sys
import tempfile

import numpy as np
import torch

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "models", "recipe"))
import heedfile  # noqa: E402
import search  # noqa: E402
from transformer import Transformer, heed_tensors, load_heed_tensors  # noqa

OUT = os.path.join(ROOT, "tests", "fixtures")
DATA = os.path.join(ROOT, "..", "shared", "data", "multi30k")
TAGS = {"de": "<2de>", "en": "<2en>"}
SENTENCES = [("A dog runs in the park.", "de"),
             ("Zwei Männer spielen Fußball auf einer Wiese.", "en"),
             ("A little girl climbing into a wooden playhouse.", "de"),
             ("Ein Hund.", "en")]
TARGETS = ["Ein Hund rennt im Park.", "Two men play soccer.",
           "Ein kleines Mädchen klettert.", "A dog."]


def train_tokenizer():
    prefix = os.path.join(OUT, "tiny_spm")
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
        for lang in ("en", "de"):
            with gzip.open(os.path.join(DATA, f"train.{lang}.gz"), "rt") as g:
                for i, line in enumerate(g):
                    if i >= 3000:
                        break
                    f.write(line)
        corpus = f.name
    subprocess.run(
        ["spm_train", f"--input={corpus}", f"--model_prefix={prefix}",
         "--vocab_size=250", "--model_type=unigram",
         "--character_coverage=1.0", "--normalization_rule_name=identity",
         "--pad_id=0", "--bos_id=1", "--eos_id=2", "--unk_id=3",
         "--user_defined_symbols=<2de>,<2en>", "--num_threads=1",
         "--minloglevel=2"], check=True)
    os.unlink(corpus)
    os.unlink(prefix + ".vocab")
    return prefix + ".model"


def encode(spm_model, text):
    out = subprocess.run(["spm_encode", f"--model={spm_model}",
                          "--output_format=id"], input=text + "\n",
                         capture_output=True, text=True, check=True).stdout
    return [int(t) for t in out.split()]




def nested(t):
    return np.asarray(t, dtype=np.float32).tolist()


def build(name, config, spm_model, float_dtype, seed):
    torch.manual_seed(seed)
    model = Transformer(config).eval()
    with torch.no_grad():
        for p in model.parameters():  # livelier than the default init
            if p.dim() == 1:
                p.normal_(0.0, 0.2)
            else:
                p.normal_(0.0, 1.0 / np.sqrt(p.shape[1]))
        for m in model.modules():
            if isinstance(m, torch.nn.LayerNorm):
                m.weight.normal_(1.0, 0.1)
        if config.get("output_bias"):
            bias = (model.output.bias if not config["tied_output"]
                    else model.output_bias)
            bias[model.config["eos_id"]] += 2.0  # let hypotheses end early
    spm_bytes = np.frombuffer(open(spm_model, "rb").read(), dtype=np.uint8)
    tensors = heed_tensors(model)
    tensors["tokenizer.source"] = spm_bytes
    tensors["tokenizer.target"] = spm_bytes
    path = os.path.join(OUT, name + ".heed")
    heedfile.write(path, config, tensors, float_dtype)
    # The reference runs on exactly the stored (maybe F16-rounded) weights.
    _, _, stored = heedfile.read(path)
    load_heed_tensors(model, stored)
    return model


@torch.no_grad()
def goldens(model, spm_model, tag_ids):
    c = model.config
    sources = [[tag_ids[to]] + encode(spm_model, s) + [c["eos_id"]]
               for s, to in SENTENCES]
    lengths = [len(s) for s in sources]
    S = max(lengths)
    batch = torch.tensor([s + [c["pad_id"]] * (S - len(s)) for s in sources])
    memory, pad_mask, enc_w = model.encode(batch, need_weights=True)
    g = {"texts": [s for s, _ in SENTENCES], "to": [t for _, t in SENTENCES],
         "sources": sources,
         "memory": [nested(memory[b, :n]) for b, n in enumerate(lengths)],
         "encoder_attention": [
             [nested(w[b, :, :n, :n]) for w in enc_w]
             for b, n in enumerate(lengths)]}

    def forced(m, mem, mask):
        out = []
        for b, text in enumerate(TARGETS):
            inputs = [c["bos_id"]] + encode(spm_model, text)
            logits, sw, cw = m.decode(torch.tensor([inputs]), mem[b:b + 1],
                                      mask[b:b + 1], need_weights=True)
            lp = torch.log_softmax(logits[0].double(), -1)
            n = lengths[b]
            out.append({"sentence": b, "inputs": inputs,
                        "log_probs": nested(lp),
                        "self_attention": [nested(w[0]) for w in sw],
                        "cross_attention": [nested(w[0, :, :, :n])
                                            for w in cw]})
        return out

    g["forced"] = forced(model, memory, pad_mask)
    # Head masking: zeroing a head's output equals zeroing the columns of
    # the output projection that read it.
    masked = [[0, 0, 1], [1, 1, 0], [2, 0, 2]]  # (kind, layer, head)
    ablated = Transformer(c).eval()
    ablated.load_state_dict(model.state_dict())
    dh = c["d_model"] // c["heads"]
    for kind, layer, head in masked:
        mha = [lambda l: ablated.encoder[l].self_attn,
               lambda l: ablated.decoder[l].self_attn,
               lambda l: ablated.decoder[l].cross_attn][kind](layer)
        mha.out_proj.weight[:, head * dh:(head + 1) * dh] = 0.0
    mem2, mask2, _ = ablated.encode(batch)
    g["masked"] = {"heads": masked,
                   "forced": [{k: f[k] for k in ("sentence", "inputs",
                                                  "log_probs")}
                              for f in forced(ablated, mem2, mask2)]}
    g["greedy"] = [search.greedy(model, s, 2.0, 10, 0.6)[0] for s in sources]
    g["beam4"] = [search.beam(model, s, 4, 4, 2.0, 10, 0.6) for s in sources]
    return g


def main():
    # --only NAME rebuilds one fixture on the committed tokeniser.
    only = sys.argv[sys.argv.index("--only") + 1] \
        if "--only" in sys.argv else None
    os.makedirs(OUT, exist_ok=True)
    spm_model = os.path.join(OUT, "tiny_spm.model") if only \
        else train_tokenizer()

    out = subprocess.run(["spm_export_vocab", f"--model={spm_model}"],
                         capture_output=True, text=True, check=True).stdout
    pieces = [line.split("\t")[0] for line in out.splitlines()]
    vocab = len(pieces)
    tag_ids = {lang: pieces.index(tag) for lang, tag in TAGS.items()}
    base = {"d_model": 32, "heads": 4, "d_ff": 64, "encoder_layers": 2,
            "decoder_layers": 2, "source_vocab": vocab, "target_vocab": vocab,
            "target_tags": TAGS, "trained_max_length": 64}
    configs = {
        "tiny_postnorm": (dict(base, activation="relu", pre_norm=False),
                          np.float32, 1),
        "tiny_prenorm": (dict(base, activation="gelu", pre_norm=True,
                              shared_embeddings=False, tied_output=False,
                              output_bias=True), np.float16, 2),
        # Marian's conventions (models/recipe/marian.py).
        "tiny_marian": (dict(base, activation="relu", pre_norm=False,
                             tied_output=True, output_bias=True,
                             positions="halves",
                             decoder_start="zeros"),
                        np.float32, 3),
    }
    for name, (config, dtype, seed) in configs.items():
        if only and name != only:
            continue
        model = build(name, config, spm_model, dtype, seed)
        g = goldens(model, spm_model, tag_ids)
        g["model"] = name + ".heed"
        with open(os.path.join(OUT, name + ".json"), "w") as f:
            json.dump(g, f, separators=(",", ":"))
        print(name, "greedy lengths", [len(t) for t in g["greedy"]],
              "beam best", [len(b[0]["tokens"]) for b in g["beam4"]])


if __name__ == "__main__":
    main()
