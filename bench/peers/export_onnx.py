#!/usr/bin/python3
"""Exports a heed model's weights to ONNX as an encoder and a decoder step
with past keys/values as inputs and outputs (the layout transformers.js uses
for Marian models), for the ONNX Runtime peers.

  /usr/bin/python3 bench/peers/export_onnx.py MODEL.heed OUT_DIR

Writes OUT_DIR/encoder.onnx (src -> cross_k, cross_v, src_bias) and
OUT_DIR/decoder.onnx (tokens, position, past_k, past_v, cross_k, cross_v,
src_bias -> log_probs, present_k, present_v).
"""
import os
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "..", "models", "recipe"))
import heedfile  # noqa: E402
from cached import DecoderStep, Encoder, empty_cache  # noqa: E402
from transformer import Transformer, load_heed_tensors  # noqa: E402


def main():
    model_path, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    _, config, tensors = heedfile.read(model_path)
    model = Transformer(config).eval()
    load_heed_tensors(model, tensors)
    enc, step = Encoder(model).eval(), DecoderStep(model).eval()
    src = torch.tensor([[5, 6, 7, 2], [8, 9, 2, 0]])
    with torch.no_grad():
        torch.onnx.export(
            enc, (src,), os.path.join(out, "encoder.onnx"),
            input_names=["src"], output_names=["cross_k", "cross_v", "src_bias"],
            dynamic_axes={"src": {0: "batch", 1: "source"},
                          "cross_k": {1: "batch", 3: "source"},
                          "cross_v": {1: "batch", 3: "source"},
                          "src_bias": {0: "batch", 3: "source"}},
            opset_version=14)
        ck, cv, bias = enc(src)
        # Trace with one cached step so the concatenation is general.
        pk = torch.zeros(*empty_cache(model, 2).shape[:3], 1,
                         ck.shape[-1])
        args = (torch.tensor([[1], [1]]), torch.tensor([1]), pk, pk.clone(),
                ck, cv, bias)
        torch.onnx.export(
            step, args, os.path.join(out, "decoder.onnx"),
            input_names=["tokens", "position", "past_k", "past_v", "cross_k",
                         "cross_v", "src_bias"],
            output_names=["log_probs", "present_k", "present_v"],
            dynamic_axes={"tokens": {0: "batch"},
                          "past_k": {1: "batch", 3: "past"},
                          "past_v": {1: "batch", 3: "past"},
                          "cross_k": {1: "batch", 3: "source"},
                          "cross_v": {1: "batch", 3: "source"},
                          "src_bias": {0: "batch", 3: "source"},
                          "log_probs": {0: "batch"},
                          "present_k": {1: "batch", 3: "steps"},
                          "present_v": {1: "batch", 3: "steps"}},
            opset_version=14)
    print(f"wrote {out}/encoder.onnx and {out}/decoder.onnx")


if __name__ == "__main__":
    main()
