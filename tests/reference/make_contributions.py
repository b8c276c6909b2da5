#!/usr/bin/python3
"""Golden norm-based contributions (Kobayashi et al. 2020) of the fixture
models, computed with the PyTorch reference (models/recipe/transformer.py)
independently of heed: for every attention block, ‖(x_j W_V + b_V)^h
W_O^h‖ of each token j (source tokens, and decoder inputs for the decoder's
self-attention), from the value inputs PyTorch's attention
modules receive; the layer-level ‖Σ_h α^h_ij (x_j W_V + b_V)^h W_O^h‖ with
PyTorch's attention weights; every head's projected queries and keys; and
for every decoder layer and position of the forced
target, the norms of the residual stream entering self- and
cross-attention and of what each adds.

Run from the repository root:
  /usr/bin/python3 tests/reference/make_contributions.py
It reads tests/fixtures/tiny_{postnorm,prenorm}.{heed,json} and writes
tests/fixtures/tiny_*_contributions.json.
"""
import json
import os

import torch

from fixture import FIXTURES, head_outputs, load


def head_norms(mha, value, heads):
    """(heads, n): ‖(v_j)_h W_O^h‖."""
    return head_outputs(mha, value, heads).norm(dim=-1)


def layer_sums(mha, value, weights, heads):
    """(rows, n): ‖Σ_h α^h_ij (v_j)_h W_O^h‖ for weights α (heads, rows, n)."""
    f = head_outputs(mha, value, heads).double()
    return torch.einsum("hij,hjd->ijd", weights.double(), f).norm(dim=-1)


def projected(mha, x, which):
    """Queries (which 0) or keys (1) of inputs x (n, d), all heads: (n, d)."""
    d = x.shape[-1]
    rows = slice(which * d, (which + 1) * d)
    return x @ mha.in_proj_weight[rows].T + mha.in_proj_bias[rows]


@torch.no_grad()
def contributions(name):
    model, gold = load(name)
    heads = model.config["heads"]
    values = {}

    def keep(key):
        def hook(module, args):  # attend() passes query, key, value
            values[key] = args[2]
            values[("q_in",) + key] = args[0]
            values[("k_in",) + key] = args[1]
        return hook

    def weights(key):
        def hook(module, args, out):  # (output, per-head weights)
            values[("w",) + key] = out[1]
        return hook

    attn = {}
    for l, layer in enumerate(model.encoder):
        attn[("enc", l)] = layer.self_attn
    for l, layer in enumerate(model.decoder):
        attn[("cross", l)] = layer.cross_attn
        attn[("dec", l)] = layer.self_attn
    for key, mha in attn.items():
        mha.register_forward_pre_hook(keep(key))
        mha.register_forward_hook(weights(key))

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
        memory, mask, _ = model.encode(src, need_weights=True)
        inputs = gold["forced"][b]["inputs"]
        model.decode(torch.tensor([inputs]), memory, mask, need_weights=True)

        def per_layer(kind, f):  # 6 decimals keep the file small
            layers = model.encoder if kind == "enc" else model.decoder
            return [f(attn[(kind, l)], (kind, l)).double().round(
                decimals=6).tolist() for l in range(len(layers))]

        def summed(mha, key):
            return layer_sums(mha, values[key][0], values[("w",) + key][0],
                              heads)

        def queries(mha, key):
            return projected(mha, values[("q_in",) + key][0], 0)

        def keys(mha, key):
            return projected(mha, values[("k_in",) + key][0], 1)

        kinds = {"encoder": "enc", "decoder": "dec", "cross": "cross"}
        out.append({
            # ‖Σ_h‖ per layer: (layers, rows, cols) of each kind
            "layer": {k: per_layer(v, summed) for k, v in kinds.items()},
            # every head's projected queries and keys: (layers, rows, d)
            "queries": {k: per_layer(v, queries) for k, v in kinds.items()},
            "keys": {k: per_layer(v, keys) for k, v in kinds.items()},
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
