#!/usr/bin/python3
"""Grows a trained heed model into a larger one that starts where it was.

  /usr/bin/python3 models/recipe/grow.py --model models/heed-en-de.heed \
      --out grown.heed --d-ff 1536 [--encoder-layers 5]

The wider feed-forward layers compute exactly what the old ones did: the
new hidden units get small random input weights and zero output weights,
so they add nothing until training moves them (Net2Net's widening; Chen
et al. 2016). New encoder layers are appended, copies of the last one
with their attention and feed-forward outputs zeroed and their layer
norms made identities of normalised input (append_encoder_layers), so the
encoder computes what it did too. train.py --warm-start then trains the
grown model.
"""
import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import heedfile  # noqa: E402

# The sublayer output tensors a new encoder layer starts with at zero.
_ZEROED = ("self_attn.out_proj.weight", "self_attn.out_proj.bias",
           "fc2.weight", "fc2.bias")


def widen(tensors, prefix, d_ff, rng):
    """prefix.fc1 (d_ff_old, d) and prefix.fc2 (d, d_ff_old) to d_ff
    hidden units; the new ones have zero output weights."""
    w1, b1 = tensors[prefix + ".fc1.weight"], tensors[prefix + ".fc1.bias"]
    w2 = tensors[prefix + ".fc2.weight"]
    old, d = w1.shape
    extra = d_ff - old
    scale = float(np.std(w1))
    tensors[prefix + ".fc1.weight"] = np.concatenate(
        [w1, rng.normal(0.0, scale, (extra, d)).astype(np.float32)])
    tensors[prefix + ".fc1.bias"] = np.concatenate(
        [b1, np.zeros(extra, np.float32)])
    tensors[prefix + ".fc2.weight"] = np.concatenate(
        [w2, np.zeros((w2.shape[0], extra), np.float32)], axis=1)


def append_encoder_layers(tensors, old, new):
    """encoder.layers.{old..new-1}, copies of the last layer whose
    attention and feed-forward outputs are zero. Post-norm: each sublayer
    ends in LayerNorm(x + 0), the identity when x is already normalised
    and the norm's scale is 1 and shift 0; so the last old layer's final
    scale and shift move to the new last layer, and the encoder's output is
    what it was (up to the norms' epsilon)."""
    last = f"encoder.layers.{old - 1}."
    names = [n for n in tensors if n.startswith(last)]
    final_w = tensors[last + "final_layer_norm.weight"]
    final_b = tensors[last + "final_layer_norm.bias"]
    tensors[last + "final_layer_norm.weight"] = np.ones_like(final_w)
    tensors[last + "final_layer_norm.bias"] = np.zeros_like(final_b)
    for index in range(old, new):
        for name in names:
            suffix = name[len(last):]
            value = np.array(tensors[name], dtype=np.float32)
            if suffix in _ZEROED or suffix.endswith("layer_norm.bias"):
                value = np.zeros_like(value)
            elif suffix.endswith("layer_norm.weight"):
                value = np.ones_like(value)
            tensors[f"encoder.layers.{index}.{suffix}"] = value
    tensors[f"encoder.layers.{new - 1}.final_layer_norm.weight"] = final_w
    tensors[f"encoder.layers.{new - 1}.final_layer_norm.bias"] = final_b


def grow(config, tensors, d_ff, encoder_layers, seed=1):
    """Returns (config, tensors) of the grown model."""
    rng = np.random.default_rng(seed)
    tensors = {k: (np.array(v, dtype=np.float32) if v.dtype.kind == "f"
                   else v) for k, v in tensors.items()}
    config = dict(config)
    if encoder_layers < config["encoder_layers"]:
        raise ValueError("--encoder-layers cannot remove layers")
    if d_ff < config["d_ff"]:
        raise ValueError(f"--d-ff {d_ff} is below the model's "
                         f"{config['d_ff']}")
    if encoder_layers > config["encoder_layers"]:
        if config.get("pre_norm"):
            # There the last layer's norms feed its own sublayers.
            raise ValueError("new encoder layers keep what a post-norm "
                             "model computes, not a pre-norm one's")
        append_encoder_layers(tensors, config["encoder_layers"],
                              encoder_layers)
    config["encoder_layers"] = encoder_layers
    if d_ff != config["d_ff"]:
        for side, count in (("encoder", config["encoder_layers"]),
                            ("decoder", config["decoder_layers"])):
            for i in range(count):
                widen(tensors, f"{side}.layers.{i}", d_ff, rng)
        config["d_ff"] = d_ff
    return config, tensors


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--model", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--d-ff", type=int, required=True)
    p.add_argument("--encoder-layers", type=int, default=0,
                   help="total encoder layers (default: as the model)")
    args = p.parse_args()
    _, config, tensors = heedfile.read(args.model)
    config, tensors = grow(config, tensors, args.d_ff,
                           args.encoder_layers or config["encoder_layers"])
    heedfile.write(args.out, config, tensors, np.float16)
    params = sum(v.size for k, v in tensors.items()
                 if not k.startswith("tokenizer."))
    print(f"{args.out}: {params:,} parameters, "
          f"{os.path.getsize(args.out) / 1e6:.1f} MB", flush=True)


if __name__ == "__main__":
    main()
