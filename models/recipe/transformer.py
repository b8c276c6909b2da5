"""The Transformer of "Attention Is All You Need" in PyTorch, configured by
the same JSON config as heed (models/FORMAT.md), with export to and import
from heed's tensor names. Used for training and as the independent
reference the C++ engine is tested against.
"""
import math

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

DEFAULTS = {"d_model": 512, "heads": 8, "d_ff": 2048, "encoder_layers": 6,
            "decoder_layers": 6, "activation": "relu", "pre_norm": False,
            "layer_norm_eps": 1e-5, "scale_embeddings": True,
            "shared_embeddings": True, "tied_output": True,
            "output_bias": False, "pad_id": 0, "bos_id": 1, "eos_id": 2,
            "unk_id": 3, "target_tags": {}, "trained_max_length": 256,
            "positions": "interleaved", "decoder_start": "bos"}


def full_config(config):
    c = dict(DEFAULTS)
    c.update(config)
    return c


def positional_encoding(length, d, device=None, layout="interleaved"):
    """(length, d), computed in float64. interleaved (the paper's): sin on
    even, cos on odd dimensions, timescales 10000^(2i/d); halves
    (tensor2tensor's and Marian's): the sines, then the cosines, timescales
    10000^(i/(d/2 - 1))."""
    pos = torch.arange(length, dtype=torch.float64)[:, None]
    pe = torch.zeros(length, d, dtype=torch.float64)
    if layout == "halves":
        half = d // 2
        i = torch.arange(half, dtype=torch.float64)
        angle = pos * torch.exp(-math.log(10000.0) * i / (half - 1))
        pe[:, :half] = torch.sin(angle)
        pe[:, half:2 * half] = torch.cos(angle)
    else:
        i = torch.arange(0, d, 2, dtype=torch.float64)
        angle = pos * torch.exp(-math.log(10000.0) * i / d)
        pe[:, 0::2] = torch.sin(angle)
        pe[:, 1::2] = torch.cos(angle)[:, : d // 2]
    return pe.to(torch.float32).to(device)


def activation(name):
    return {"relu": F.relu, "gelu": F.gelu,
            "gelu_tanh": lambda x: F.gelu(x, approximate="tanh"),
            "silu": F.silu, "swish": F.silu}[name]


class Sublayer(nn.Module):
    """Residual + LayerNorm around f, post-norm or pre-norm."""

    def __init__(self, d, eps, pre_norm, dropout):
        super().__init__()
        self.norm = nn.LayerNorm(d, eps=eps)
        self.pre_norm = pre_norm
        self.dropout = nn.Dropout(dropout)

    def forward(self, x, f):
        if self.pre_norm:
            y, w = f(self.norm(x))
            return x + self.dropout(y), w
        y, w = f(x)
        return self.norm(x + self.dropout(y)), w


class FeedForward(nn.Module):
    def __init__(self, d, d_ff, act, dropout):
        super().__init__()
        self.fc1 = nn.Linear(d, d_ff)
        self.fc2 = nn.Linear(d_ff, d)
        self.act = activation(act)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x):
        return self.fc2(self.dropout(self.act(self.fc1(x)))), None


def attend(mha, q, kv, need_weights, key_padding_mask=None, attn_mask=None):
    out, w = mha(q, kv, kv, key_padding_mask=key_padding_mask,
                 attn_mask=attn_mask, need_weights=need_weights,
                 average_attn_weights=False)
    return out, w


class EncoderLayer(nn.Module):
    def __init__(self, c, dropout):
        super().__init__()
        d = c["d_model"]
        self.self_attn = nn.MultiheadAttention(d, c["heads"], dropout=dropout,
                                               batch_first=True)
        self.attn_block = Sublayer(d, c["layer_norm_eps"], c["pre_norm"],
                                   dropout)
        self.ffn = FeedForward(d, c["d_ff"], c["activation"], dropout)
        self.ffn_block = Sublayer(d, c["layer_norm_eps"], c["pre_norm"],
                                  dropout)

    def forward(self, x, pad_mask, need_weights):
        x, w = self.attn_block(x, lambda h: attend(
            self.self_attn, h, h, need_weights, key_padding_mask=pad_mask))
        x, _ = self.ffn_block(x, self.ffn)
        return x, w


class DecoderLayer(nn.Module):
    def __init__(self, c, dropout):
        super().__init__()
        d = c["d_model"]
        eps, pre = c["layer_norm_eps"], c["pre_norm"]
        self.self_attn = nn.MultiheadAttention(d, c["heads"], dropout=dropout,
                                               batch_first=True)
        self.self_block = Sublayer(d, eps, pre, dropout)
        self.cross_attn = nn.MultiheadAttention(d, c["heads"], dropout=dropout,
                                                batch_first=True)
        self.cross_block = Sublayer(d, eps, pre, dropout)
        self.ffn = FeedForward(d, c["d_ff"], c["activation"], dropout)
        self.ffn_block = Sublayer(d, eps, pre, dropout)

    def forward(self, x, memory, src_pad_mask, causal, need_weights):
        x, ws = self.self_block(x, lambda h: attend(
            self.self_attn, h, h, need_weights, attn_mask=causal))
        x, wc = self.cross_block(x, lambda h: attend(
            self.cross_attn, h, memory, need_weights,
            key_padding_mask=src_pad_mask))
        x, _ = self.ffn_block(x, self.ffn)
        return x, ws, wc


class Transformer(nn.Module):
    def __init__(self, config, dropout=0.0):
        super().__init__()
        c = self.config = full_config(config)
        d = c["d_model"]
        self.embed = nn.Embedding(c["source_vocab"], d)
        nn.init.normal_(self.embed.weight, std=d ** -0.5)
        if not c["shared_embeddings"]:
            self.target_embed = nn.Embedding(c["target_vocab"], d)
            nn.init.normal_(self.target_embed.weight, std=d ** -0.5)
        self.encoder = nn.ModuleList(EncoderLayer(c, dropout)
                                     for _ in range(c["encoder_layers"]))
        self.decoder = nn.ModuleList(DecoderLayer(c, dropout)
                                     for _ in range(c["decoder_layers"]))
        if c["pre_norm"]:
            self.encoder_norm = nn.LayerNorm(d, eps=c["layer_norm_eps"])
            self.decoder_norm = nn.LayerNorm(d, eps=c["layer_norm_eps"])
        if not c["tied_output"]:
            self.output = nn.Linear(d, c["target_vocab"],
                                    bias=c["output_bias"])
        elif c["output_bias"]:
            self.output_bias = nn.Parameter(torch.zeros(c["target_vocab"]))
        self.dropout = nn.Dropout(dropout)

    def target_embedding(self):
        return self.embed if self.config["shared_embeddings"] else \
            self.target_embed

    def _embed(self, table, ids, decoder=False):
        c = self.config
        d = c["d_model"]
        x = table(ids)
        if c["scale_embeddings"]:
            x = x * math.sqrt(d)
        if decoder and c["decoder_start"] == "zeros":
            # Marian's convention: the first decoder input (the <s> slot)
            # is a zero vector, positions added.
            keep = torch.ones(ids.shape[1], 1, device=ids.device)
            keep[0] = 0
            x = x * keep
        pe = positional_encoding(ids.shape[1], d, ids.device, c["positions"])
        return self.dropout(x + pe)

    def encode(self, src, need_weights=False):
        """src (B, S) padded with pad_id -> memory (B, S, d), pad mask,
        per-layer attention (B, H, S, S)."""
        pad_mask = src.eq(self.config["pad_id"])
        x = self._embed(self.embed, src)
        weights = []
        for layer in self.encoder:
            x, w = layer(x, pad_mask, need_weights)
            weights.append(w)
        if self.config["pre_norm"]:
            x = self.encoder_norm(x)
        return x, pad_mask, weights

    def decode(self, tgt_in, memory, src_pad_mask, need_weights=False):
        """Teacher-forced logits (B, T, V) and per-layer self (B, H, T, T)
        and cross (B, H, T, S) attention."""
        x, self_w, cross_w = self.decoder_states(tgt_in, memory, src_pad_mask,
                                                 need_weights)
        if self.config["tied_output"]:
            logits = x @ self.target_embedding().weight.t()
            if self.config["output_bias"]:
                logits = logits + self.output_bias
        else:
            logits = self.output(x)
        return logits, self_w, cross_w

    def decoder_states(self, tgt_in, memory, src_pad_mask, need_weights=False):
        """Teacher-forced: the output layer's input (B, T, d) and per-layer
        self and cross attention."""
        T = tgt_in.shape[1]
        causal = torch.triu(torch.ones(T, T, dtype=torch.bool,
                                       device=tgt_in.device), 1)
        x = self._embed(self.target_embedding(), tgt_in, decoder=True)
        self_w, cross_w = [], []
        for layer in self.decoder:
            x, ws, wc = layer(x, memory, src_pad_mask, causal, need_weights)
            self_w.append(ws)
            cross_w.append(wc)
        if self.config["pre_norm"]:
            x = self.decoder_norm(x)
        return x, self_w, cross_w

    def forward(self, src, tgt_in):
        memory, pad_mask, _ = self.encode(src)
        return self.decode(tgt_in, memory, pad_mask)[0]


def _attention_tensors(prefix, mha, d):
    w, b = mha.in_proj_weight, mha.in_proj_bias
    out = {}
    for i, name in enumerate(("q_proj", "k_proj", "v_proj")):
        out[f"{prefix}.{name}.weight"] = w[i * d:(i + 1) * d]
        out[f"{prefix}.{name}.bias"] = b[i * d:(i + 1) * d]
    out[f"{prefix}.out_proj.weight"] = mha.out_proj.weight
    out[f"{prefix}.out_proj.bias"] = mha.out_proj.bias
    return out


def _norm(prefix, ln):
    return {f"{prefix}.weight": ln.weight, f"{prefix}.bias": ln.bias}


def _ffn(prefix, ffn):
    return {f"{prefix}.fc1.weight": ffn.fc1.weight,
            f"{prefix}.fc1.bias": ffn.fc1.bias,
            f"{prefix}.fc2.weight": ffn.fc2.weight,
            f"{prefix}.fc2.bias": ffn.fc2.bias}


def heed_tensors(model):
    """name -> float32 numpy array, in heed's names (models/FORMAT.md)."""
    return {k: v.detach().float().cpu().numpy()
            for k, v in module_tensors(model).items()}


def module_tensors(model):
    """name -> the model's own tensor, in heed's names (q, k and v are
    views of PyTorch's packed projection)."""
    c, d = model.config, model.config["d_model"]
    t = {"encoder.embed_tokens.weight": model.embed.weight}
    if not c["shared_embeddings"]:
        t["decoder.embed_tokens.weight"] = model.target_embed.weight
    for i, layer in enumerate(model.encoder):
        p = f"encoder.layers.{i}"
        t.update(_attention_tensors(p + ".self_attn", layer.self_attn, d))
        t.update(_norm(p + ".self_attn_layer_norm", layer.attn_block.norm))
        t.update(_ffn(p, layer.ffn))
        t.update(_norm(p + ".final_layer_norm", layer.ffn_block.norm))
    for i, layer in enumerate(model.decoder):
        p = f"decoder.layers.{i}"
        t.update(_attention_tensors(p + ".self_attn", layer.self_attn, d))
        t.update(_norm(p + ".self_attn_layer_norm", layer.self_block.norm))
        t.update(_attention_tensors(p + ".encoder_attn", layer.cross_attn, d))
        t.update(_norm(p + ".encoder_attn_layer_norm", layer.cross_block.norm))
        t.update(_ffn(p, layer.ffn))
        t.update(_norm(p + ".final_layer_norm", layer.ffn_block.norm))
    if c["pre_norm"]:
        t.update(_norm("encoder.layer_norm", model.encoder_norm))
        t.update(_norm("decoder.layer_norm", model.decoder_norm))
    if not c["tied_output"]:
        t["output_projection.weight"] = model.output.weight
        if c["output_bias"]:
            t["output_projection.bias"] = model.output.bias
    elif c["output_bias"]:
        t["output_projection.bias"] = model.output_bias
    return t


def load_heed_tensors(model, tensors):
    """Copies heed-named arrays (as read from a model file) into model."""
    names = module_tensors(model).keys()
    with torch.no_grad():
        params = {}
        for name in names:
            params[name] = torch.from_numpy(
                np.asarray(tensors[name], dtype=np.float32).copy())
        model.embed.weight.copy_(params["encoder.embed_tokens.weight"])
        if not model.config["shared_embeddings"]:
            model.target_embed.weight.copy_(
                params["decoder.embed_tokens.weight"])

        def attn(prefix, mha):
            mha.in_proj_weight.copy_(torch.cat(
                [params[f"{prefix}.{n}_proj.weight"] for n in "qkv"]))
            mha.in_proj_bias.copy_(torch.cat(
                [params[f"{prefix}.{n}_proj.bias"] for n in "qkv"]))
            mha.out_proj.weight.copy_(params[f"{prefix}.out_proj.weight"])
            mha.out_proj.bias.copy_(params[f"{prefix}.out_proj.bias"])

        def norm(prefix, ln):
            ln.weight.copy_(params[prefix + ".weight"])
            ln.bias.copy_(params[prefix + ".bias"])

        def ffn(prefix, f):
            for n in ("fc1", "fc2"):
                getattr(f, n).weight.copy_(params[f"{prefix}.{n}.weight"])
                getattr(f, n).bias.copy_(params[f"{prefix}.{n}.bias"])

        for i, layer in enumerate(model.encoder):
            p = f"encoder.layers.{i}"
            attn(p + ".self_attn", layer.self_attn)
            norm(p + ".self_attn_layer_norm", layer.attn_block.norm)
            ffn(p, layer.ffn)
            norm(p + ".final_layer_norm", layer.ffn_block.norm)
        for i, layer in enumerate(model.decoder):
            p = f"decoder.layers.{i}"
            attn(p + ".self_attn", layer.self_attn)
            norm(p + ".self_attn_layer_norm", layer.self_block.norm)
            attn(p + ".encoder_attn", layer.cross_attn)
            norm(p + ".encoder_attn_layer_norm", layer.cross_block.norm)
            ffn(p, layer.ffn)
            norm(p + ".final_layer_norm", layer.ffn_block.norm)
        if model.config["pre_norm"]:
            norm("encoder.layer_norm", model.encoder_norm)
            norm("decoder.layer_norm", model.decoder_norm)
        if not model.config["tied_output"]:
            model.output.weight.copy_(params["output_projection.weight"])
            if model.config["output_bias"]:
                model.output.bias.copy_(params["output_projection.bias"])
        elif model.config["output_bias"]:
            model.output_bias.copy_(params["output_projection.bias"])
