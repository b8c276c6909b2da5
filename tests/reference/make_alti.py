#!/usr/bin/python3
"""Golden ALTI and ALTI+ (core/explain/alti.h; Ferrando et al., EMNLP 2022)
of the fixture models, computed with the PyTorch reference model
(models/recipe/transformer.py) independently of heed, from what PyTorch's
attention blocks receive and return. For each attention block, with x_i
the block's input, z_ij = Σ_h α^h_ij (x_j W_V + b_V)^h W_O^h and t_ij = z_ij
plus x_i where the residual belongs to j (self-attention: j = i;
cross-attention: a column of its own):
  post-norm  T_ij = γ ⊙ (t_ij − mean t_ij) / σ_i, y_i = LN(x_i + Σ_j z_ij + b_O)
  pre-norm   T_ij = t_ij, y_i = x_i + Σ_j z_ij + b_O
  c_ij = max(0, ‖y_i‖₁ − ‖y_i − T_ij‖₁), normalised over j.
y_i is checked against the block's actual output. The encoder's layers are
rolled out (R_l = C_l R_{l−1}); the decoder's layers join the source,
through the encoder's last rollout, and the prefix (ALTI+).

Run from the repository root:
  /usr/bin/python3 tests/reference/make_alti.py
It reads tests/fixtures/tiny_{postnorm,prenorm}.{heed,json} and writes
tests/fixtures/tiny_*_alti.json: per sentence, the forced decoder inputs,
each layer's contributions (encoder, self, cross) and the rollouts
(encoder_rollout, alti).
"""
import json
import os

import torch

from fixture import FIXTURES, head_outputs, load


def block(mha, norm, pre_norm, x, value, weights, output, column):
    """(rows, n + column) contributions of one attention block."""
    x = x.double()
    f = head_outputs(mha, value, weights.shape[0], torch.double)
    z = torch.einsum("hij,hjd->ijd", weights.double(), f)
    b_o = mha.out_proj.bias.double()
    s = x + z.sum(1) + b_o
    if column:
        t = torch.cat([z, x[:, None, :]], 1)
    else:
        t = z + torch.diag_embed(torch.ones(x.shape[0], dtype=x.dtype))[
            ..., None] * x[:, None, :]
    if pre_norm:
        y, T = s, t
    else:
        mean = s.mean(-1, keepdim=True)
        sigma = (s.var(-1, unbiased=False, keepdim=True) + norm.eps).sqrt()
        gamma, beta = norm.weight.double(), norm.bias.double()
        y = gamma * (s - mean) / sigma + beta
        T = gamma * (t - t.mean(-1, keepdim=True)) / sigma[:, None, :]
    assert torch.allclose(y, output.double(), atol=1e-4), "not the block's output"
    c = (y.abs().sum(-1)[:, None] - (y[:, None, :] - T).abs().sum(-1)).clamp(min=0)
    return c / c.sum(-1, keepdim=True)


def alti_plus(selfs, crosses, encoder, T, S):
    """(layers, T, S + T): ALTI+ of every decoder layer."""
    prev = torch.cat([torch.zeros(T, S, dtype=torch.double),
                      torch.eye(T, dtype=torch.double)], 1)
    out = []
    for c_self, c_cross in zip(selfs, crosses):
        prefix = c_cross[:, S:] * c_self  # the residual share, over the prefix
        r = prefix @ prev
        r[:, :S] += c_cross[:, :S] @ encoder
        r = r / r.sum(-1, keepdim=True)
        out.append(r)
        prev = r
    return torch.stack(out)


@torch.no_grad()
def make(name):
    model, gold = load(name)
    pre = model.config["pre_norm"]
    seen = {}

    def entering(key):
        def hook(module, args):  # Sublayer.forward(x, f)
            seen[("x",) + key] = args[0][0]
        return hook

    def leaving(key):
        def hook(module, args, out):  # (x after the block, weights)
            seen[("y",) + key] = out[0][0]
        return hook

    def attending(key):
        def pre_hook(module, args):  # attend() passes query, key, value
            seen[("v",) + key] = args[2][0]

        def hook(module, args, out):  # (output, per-head weights)
            seen[("w",) + key] = out[1][0]
        return pre_hook, hook

    blocks = {}
    for l, layer in enumerate(model.encoder):
        blocks[("enc", l)] = (layer.attn_block, layer.self_attn)
    for l, layer in enumerate(model.decoder):
        blocks[("dec", l)] = (layer.self_block, layer.self_attn)
        blocks[("cross", l)] = (layer.cross_block, layer.cross_attn)
    for key, (sub, mha) in blocks.items():
        sub.register_forward_pre_hook(entering(key))
        sub.register_forward_hook(leaving(key))
        pre_hook, hook = attending(key)
        mha.register_forward_pre_hook(pre_hook)
        mha.register_forward_hook(hook)

    def contributions(key, column):
        sub, mha = blocks[key]
        # Pre-norm: the block's output is the residual stream itself.
        return block(mha, sub.norm, pre, seen[("x",) + key],
                     seen[("v",) + key], seen[("w",) + key],
                     seen[("y",) + key], column)

    out = []
    for b, source in enumerate(gold["sources"]):
        memory, mask, _ = model.encode(torch.tensor([source]),
                                       need_weights=True)
        encoder = [contributions(("enc", l), False)
                   for l in range(len(model.encoder))]
        inputs = gold["forced"][b]["inputs"]
        model.decode(torch.tensor([inputs]), memory, mask, need_weights=True)
        selfs = [contributions(("dec", l), False)
                 for l in range(len(model.decoder))]
        crosses = [contributions(("cross", l), True)
                   for l in range(len(model.decoder))]
        rollout = [encoder[0]]
        for c in encoder[1:]:
            rollout.append(c @ rollout[-1])
        S, T = len(source), len(inputs)
        alti = alti_plus(selfs, crosses, rollout[-1], T, S)

        def rounded(ms):  # 7 decimals keep the file small
            return [m.round(decimals=7).tolist() for m in ms]
        out.append({"sentence": b, "inputs": inputs,
                    "encoder": rounded(encoder), "self": rounded(selfs),
                    "cross": rounded(crosses),
                    "encoder_rollout": rounded(rollout),
                    "alti": rounded(alti)})
    with open(os.path.join(FIXTURES, name + "_alti.json"), "w") as f:
        json.dump(out, f)


if __name__ == "__main__":
    for fixture in ("tiny_postnorm", "tiny_prenorm"):
        make(fixture)
