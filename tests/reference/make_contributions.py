#!/usr/bin/python3
"""Golden norm-based contributions (Kobayashi et al. 2020) of the fixture
models, computed with the PyTorch reference (models/recipe/transformer.py)
independently of heed: for every attention block, ‖(x_j W_V + b_V)^h
W_O^h‖ of each token j (source tokens, and decoder inputs for the decoder's
self-attention), from the value inputs PyTorch's attention
modules receive; and for every decoder layer and position of the forced
target, the norms of the residual stream entering self- and
cross-attention and of what each adds.

Run from the repository root:
  /usr/bin/python3 tests/reference/make_contributions.py
It reads tests/fixtures/tiny_{postnorm,prenorm}.{heed,json} and writes
tests/fixtures/tiny_*_contributions.json.
"""
import json
import os
import sys

import torch

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "models", "recipe"))
import heedfile  # noqa: E402
from transformer import Transformer, load_heed_tensors  # noqa: E402

FIXTURES = os.path.join(ROOT, "tests", "fixtures")


def head_norms(mha, value, heads):
    """(heads, n): ‖(v_j)_h W_O^h‖ for the value inputs value (n, d)."""
    d = value.shape[-1]
    dk = d // heads
    v = value @ mha.in_proj_weight[2 * d:].T + mha.in_proj_bias[2 * d:]
    out = []
    for h in range(heads):
        f = v[:, h * dk:(h + 1) * dk] @ mha.out_proj.weight[:, h * dk:(h + 1) * dk].T
        out.append(f.norm(dim=-1))
    return torch.stack(out)


@torch.no_grad()
def contributions(name):
    _, config, tensors = heedfile.read(os.path.join(FIXTURES, name + ".heed"))
    model = Transformer(config).eval()
    load_heed_tensors(model, tensors)
    gold = json.load(open(os.path.join(FIXTURES, name + ".json")))
    heads = model.config["heads"]
    values = {}

    def keep(key):
        def hook(module, args):  # attend() passes query, key, value
            values[key] = args[2]
        return hook

    for l, layer in enumerate(model.encoder):
        layer.self_attn.register_forward_pre_hook(keep(("enc", l)))
    for l, layer in enumerate(model.decoder):
        layer.cross_attn.register_forward_pre_hook(keep(("cross", l)))
        layer.self_attn.register_forward_pre_hook(keep(("dec", l)))

    def entering(key):
        def hook(module, args):  # Sublayer.forward(x, f)
            values[key] = args[0]
        return hook

    def output(key):
        def hook(module, args, out):  # (attention output, weights)
            values[key] = out[0]
        return hook

    for l, layer in enumerate(model.decoder):
        layer.self_block.register_forward_pre_hook(entering(("x_self", l)))
        layer.cross_block.register_forward_pre_hook(entering(("x_cross", l)))
        layer.self_attn.register_forward_hook(output(("self_out", l)))
        layer.cross_attn.register_forward_hook(output(("cross_out", l)))
    out = []
    for b, source in enumerate(gold["sources"]):
        src = torch.tensor([source])
        memory, mask, _ = model.encode(src)
        inputs = gold["forced"][b]["inputs"]
        model.decode(torch.tensor([inputs]), memory, mask)
        out.append({
            "sentence": b, "inputs": inputs,
            "encoder": [head_norms(layer.self_attn, values[("enc", l)][0],
                                   heads).tolist()
                        for l, layer in enumerate(model.encoder)],
            "cross": [head_norms(layer.cross_attn, values[("cross", l)][0],
                                 heads).tolist()
                      for l, layer in enumerate(model.decoder)],
            # (decoder layers, heads, decoder inputs)
            "decoder": [head_norms(layer.self_attn, values[("dec", l)][0],
                                   heads).tolist()
                        for l, layer in enumerate(model.decoder)],
            # (decoder layers, positions, 4)
            "sublayer_norms": [torch.stack(
                [values[(k, l)][0].norm(dim=-1) for k in
                 ("x_self", "self_out", "x_cross", "cross_out")], -1).tolist()
                for l in range(len(model.decoder))]})
    with open(os.path.join(FIXTURES, name + "_contributions.json"), "w") as f:
        json.dump(out, f)


if __name__ == "__main__":
    for fixture in ("tiny_postnorm", "tiny_prenorm"):
        contributions(fixture)
