#!/usr/bin/python3
"""Golden outputs of the fixture models with parts switched off, computed
with the PyTorch reference (models/recipe/transformer.py) independently of
heed: a sublayer switched off adds nothing (a forward hook replaces its
attention or feed-forward output with zeros, bias included); positions
"off" drop the sinusoids from the encoder's and the decoder's input;
"shuffled" give source token s the encoding of position perm[s], perm the
permutation heed defines (SplitMix64 seeded with the length, Fisher-Yates,
rotated by one if it moved nothing), written out with the goldens.

Run from the repository root:
  /usr/bin/python3 tests/reference/make_ablation.py
It reads tests/fixtures/tiny_{postnorm,prenorm}.{heed,json} and writes
tests/fixtures/tiny_*_ablation.json.
"""
import json
import os

import torch

from fixture import FIXTURES, read
import transformer  # noqa: E402  (fixture puts models/recipe on the path)

MASK = (1 << 64) - 1
# (sublayer, layer) switched off together in one case, or a positions mode.
CASES = [
    {"switch_off": [["encoder-self", 1]]},
    {"switch_off": [["encoder-ffn", 0]]},
    {"switch_off": [["decoder-self", 0], ["decoder-ffn", 1]]},
    {"switch_off": [["cross", 1]]},
    {"positions": "off"},
    {"positions": "shuffled"},
]


def shuffled(n):
    p = list(range(n))
    state = n

    def step():
        nonlocal state
        state = (state + 0x9E3779B97F4A7C15) & MASK
        z = state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
        return z ^ (z >> 31)

    for i in range(n, 1, -1):
        j = step() % i
        p[i - 1], p[j] = p[j], p[i - 1]
    if n > 1 and p == list(range(n)):
        p = p[1:] + p[:1]
    return p


def module(model, sublayer, layer):
    return {"encoder-self": lambda: model.encoder[layer].self_attn,
            "encoder-ffn": lambda: model.encoder[layer].ffn,
            "decoder-self": lambda: model.decoder[layer].self_attn,
            "cross": lambda: model.decoder[layer].cross_attn,
            "decoder-ffn": lambda: model.decoder[layer].ffn}[sublayer]()


def zero_output(module_, args, out):
    return (torch.zeros_like(out[0]), out[1])


@torch.no_grad()
def run(model, gold, positions):
    """Memory and forced log-probs per sentence, one sentence at a time."""
    original = transformer.positional_encoding
    out = []
    for b, source in enumerate(gold["sources"]):
        n = len(source)

        def encoding(length, d, device=None, layout="interleaved"):
            pe = original(max(length, n), d, device, layout)
            if positions == "off":
                return torch.zeros(length, d, device=device)
            if positions == "shuffled" and length == n and encoding.source:
                return pe[shuffled(n)]
            return pe[:length]

        encoding.source = True
        transformer.positional_encoding = encoding
        try:
            memory, mask, _ = model.encode(torch.tensor([source]))
            encoding.source = False  # the decoder's positions as trained
            inputs = gold["forced"][b]["inputs"]
            logits, _, _ = model.decode(torch.tensor([inputs]), memory, mask)
        finally:
            transformer.positional_encoding = original
        lp = torch.log_softmax(logits[0].double(), -1)
        out.append({"sentence": b, "inputs": inputs,
                    "memory": memory[0].double().round(decimals=6).tolist(),
                    "log_probs": lp.round(decimals=6).tolist()})
    return out


def ablation(name):
    config, tensors, gold = read(name)
    cases = []
    for case in CASES:
        model = transformer.Transformer(config).eval()
        transformer.load_heed_tensors(model, tensors)
        for sublayer, layer in case.get("switch_off", []):
            module(model, sublayer, layer).register_forward_hook(zero_output)
        results = run(model, gold, case.get("positions", "on"))
        cases.append(dict(case, results=results,
                          permutations=[shuffled(len(s))
                                        for s in gold["sources"]]))
    with open(os.path.join(FIXTURES, name + "_ablation.json"), "w") as f:
        json.dump({"cases": cases}, f, separators=(",", ":"))


if __name__ == "__main__":
    for name in ("tiny_postnorm", "tiny_prenorm"):
        ablation(name)
