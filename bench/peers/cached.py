"""The recipe's Transformer with incremental decoding: each step runs the
decoder on one new token per row over cached self-attention keys/values and
cross-attention keys/values computed once per source, as any serious
implementation (and heed) does. The same modules are exported to ONNX.

Shapes: B rows, S source positions, t cached steps, L decoder layers,
H heads, dh = d_model / H.
"""
import math
import os
import sys

import torch
import torch.nn.functional as F
from torch import nn

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "models", "recipe"))
from transformer import positional_encoding  # noqa: E402


def _split(x, heads):
    """(B, n, d) -> (B, H, n, dh)."""
    b, n, d = x.shape
    return x.view(b, n, heads, d // heads).transpose(1, 2)


def _project(mha, x, which):
    """One of q/k/v (which = 0/1/2) of nn.MultiheadAttention's packed
    in-projection."""
    d = x.shape[-1]
    w = mha.in_proj_weight[which * d:(which + 1) * d]
    b = mha.in_proj_bias[which * d:(which + 1) * d]
    return F.linear(x, w, b)


def _attend(q, k, v, bias=None):
    """softmax(q kᵀ / √dh + bias) v over (B, H, n, dh) -> (B, n, H·dh)."""
    s = q @ k.transpose(-1, -2) / math.sqrt(q.shape[-1])
    if bias is not None:
        s = s + bias
    out = torch.softmax(s, -1) @ v
    b, h, n, dh = out.shape
    return out.transpose(1, 2).reshape(b, n, h * dh)


class Encoder(nn.Module):
    """src (B, S) -> cross keys/values (L, B, H, S, dh) of every decoder
    layer, and src_bias (B, 1, 1, S): 0, or -inf on padding. Attention is
    written out (not nn.MultiheadAttention's fused kernel) so that it
    exports to ONNX."""

    def __init__(self, model, max_len=1024):
        super().__init__()
        self.m = model
        self.register_buffer("pe", positional_encoding(
            max_len, model.config["d_model"]))

    def forward(self, src):
        m, c = self.m, self.m.config
        heads = c["heads"]
        pad = src.eq(c["pad_id"])
        bias = torch.zeros(pad.shape).masked_fill(
            pad, float("-inf"))[:, None, None, :]
        x = m.embed(src)
        if c["scale_embeddings"]:
            x = x * math.sqrt(c["d_model"])
        x = x + self.pe[:src.shape[1]]
        for layer in m.encoder:
            def self_attn(h):
                q, k, v = (_split(_project(layer.self_attn, h, i), heads)
                           for i in range(3))
                return layer.self_attn.out_proj(_attend(q, k, v, bias)), None
            x, _ = layer.attn_block(x, self_attn)
            x, _ = layer.ffn_block(x, layer.ffn)
        if c["pre_norm"]:
            x = m.encoder_norm(x)
        ks, vs = [], []
        for layer in m.decoder:
            ks.append(_split(_project(layer.cross_attn, x, 1), heads))
            vs.append(_split(_project(layer.cross_attn, x, 2), heads))
        return torch.stack(ks), torch.stack(vs), bias


class DecoderStep(nn.Module):
    """tokens (B, 1), position (1,) int64, past keys/values (L, B, H, t, dh),
    cross keys/values, src_bias -> log-probs (B, V) and the keys/values
    with this step appended (L, B, H, t+1, dh)."""

    def __init__(self, model, max_len=1024):
        super().__init__()
        self.m = model
        c = model.config
        self.heads = c["heads"]
        self.register_buffer("pe", positional_encoding(max_len, c["d_model"]))

    def forward(self, tokens, position, past_k, past_v, cross_k, cross_v,
                src_bias):
        m, c, heads = self.m, self.m.config, self.heads
        x = m.target_embedding()(tokens)
        if c["scale_embeddings"]:
            x = x * math.sqrt(c["d_model"])
        x = x + self.pe[position]  # (1, d), the same for every row
        new_k, new_v = [], []
        for i, layer in enumerate(m.decoder):
            def self_attn(h):
                q = _split(_project(layer.self_attn, h, 0), heads)
                k = torch.cat([past_k[i], _split(_project(layer.self_attn, h, 1),
                                                 heads)], 2)
                v = torch.cat([past_v[i], _split(_project(layer.self_attn, h, 2),
                                                 heads)], 2)
                new_k.append(k)
                new_v.append(v)
                return layer.self_attn.out_proj(_attend(q, k, v)), None

            def cross_attn(h):
                q = _split(_project(layer.cross_attn, h, 0), heads)
                out = _attend(q, cross_k[i], cross_v[i], src_bias)
                return layer.cross_attn.out_proj(out), None

            x, _ = layer.self_block(x, self_attn)
            x, _ = layer.cross_block(x, cross_attn)
            x, _ = layer.ffn_block(x, layer.ffn)
        if c["pre_norm"]:
            x = m.decoder_norm(x)
        x = x[:, -1]
        if c["tied_output"]:
            logits = x @ m.target_embedding().weight.t()
            if c["output_bias"]:
                logits = logits + m.output_bias
        else:
            logits = m.output(x)
        return (torch.log_softmax(logits, -1), torch.stack(new_k),
                torch.stack(new_v))


def empty_cache(model, rows):
    c = model.config
    L, H = c["decoder_layers"], c["heads"]
    return torch.zeros(L, rows, H, 0, c["d_model"] // H)
