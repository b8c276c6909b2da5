#!/usr/bin/python3
"""heed's int8 in Marian's scheme, so that heed and Bergamot compute the
same integers.

  /usr/bin/python3 models/recipe/marian_int8.py \\
      --model models/heed-en-de.heed [--text de:EN.txt --text en:DE.txt] \\
      --out models/work/heed-en-de-int8-marian.heed
  /usr/bin/python3 models/recipe/marian.py export \\
      --model models/work/heed-en-de-int8-marian.heed --out DIR

heed's own int8 (`heed quantize`) gives every weight row and every
activation row its own scale. Bergamot's engine (Marian's intgemm,
`gemm-precision: int8shiftAlphaAll`) has one scale per weight matrix and
one fixed scale per matrix for its inputs, measured beforehand on text
(the "alphas"). Two engines that round differently pick differently where
two words were nearly tied; this writes a heed int8 file in Marian's
scheme instead, which `marian.py export` turns into Marian's `intgemm8`
matrices with the same integers and multipliers:

- a matrix W: quantMult = 127 / max|W| (float32), q = round(W · quantMult)
  to nearest even; heed's row scales are all 1 / quantMult (Marian
  dequantises the embedding table with the same product);
- its input: alpha = mean + 1.1 · std over the calibration sentences of
  the largest |input| the matrix met in that sentence (Marian's
  scripts/alphas/extract_stats.py, over sentences instead of batches);
  heed stores alpha as `<name>_alpha` and quantises the input with
  127 / alpha, clipped; Marian stores 127 / alpha as `<name>_QuantMultA`.

The calibration runs the float model in PyTorch: each sentence is
translated greedily, then read again teacher-forced while every matrix
multiply records the largest |input| it sees. Each `--text LANG:FILE` is
a file of source lines to translate into LANG; without any, the first 100
lines of Multi30k's validation set each way.
"""
import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import heedfile  # noqa: E402

SPREAD = 1.1  # Marian's: alpha = mean + 1.1 · std


def is_matrix(name, a):
    return name.endswith(".weight") and np.asarray(a).ndim == 2


def quantize_matrix(w):
    """Marian's intgemm quantisation of one matrix: (int8 q, quantMult)."""
    w = np.asarray(w, np.float32)
    top = np.float32(np.abs(w).max())
    mult = np.float32(127.0) / top if top > 0 else np.float32(1.0)
    q = np.clip(np.rint(w * mult), -127, 127).astype(np.int8)
    return q, mult


def output_embedding(c):
    return "encoder.embed_tokens.weight" if c["shared_embeddings"] \
        else "decoder.embed_tokens.weight"


def calibrate(model, sentences):
    """sentences: [(source ids, tag id or None)] -> {heed matrix name:
    alpha}, from the largest |input| of each matrix in each sentence."""
    import torch
    import torch.nn.functional as F
    import search

    c = model.config
    # Where each matrix's weight lies in memory: q, k and v are views of
    # one packed matrix, which PyTorch may multiply at once.
    weights = {name: t.data_ptr() for name, t in _matrices(model).items()}
    # The output layer's input: the last decoder state.
    output = output_embedding(c) if c["tied_output"] \
        else "output_projection.weight"
    seen = {name: [] for name in weights}
    seen[output] = []
    current = {}
    linear = F.linear

    def recording(x, w, b=None):
        start, size = w.data_ptr(), w.numel() * w.element_size()
        top = float(x.detach().abs().max())
        for name, at in weights.items():
            if start <= at < start + size:
                current[name] = max(current.get(name, 0.0), top)
        return linear(x, w, b)

    try:
        for ids, tag in sentences:
            src = ([tag] if tag is not None else []) + list(ids) + \
                [c["eos_id"]]
            with torch.no_grad():
                tokens, _ = search.greedy(model, src)
            # With gradients on, PyTorch's attention takes its Python path,
            # through F.linear, not its fused one.
            current.clear()
            F.linear = recording
            memory, pad, _ = model.encode(torch.tensor([src]))
            tgt_in = torch.tensor([[c["bos_id"]] + tokens[:-1]])
            x = model.decoder_states(tgt_in, memory, pad)[0]
            F.linear = linear
            current[output] = float(x.detach().abs().max())
            for name, top in current.items():
                seen[name].append(top)
    finally:
        F.linear = linear
    missing = [name for name, tops in seen.items() if not tops]
    if missing:
        raise ValueError("calibration never multiplied " + ", ".join(missing))
    return {name: float(np.mean(tops) + SPREAD * np.std(tops))
            for name, tops in seen.items()}


def _matrices(model):
    """heed name -> the model's own weight tensor of every matrix multiplied
    with an nn.Linear or PyTorch's attention (not the embedding tables)."""
    from transformer import module_tensors
    return {name: t for name, t in module_tensors(model).items()
            if name.endswith(("_proj.weight", ".fc1.weight", ".fc2.weight"))}


def quantize(tensors, alphas):
    """A float model's tensors -> the int8 file's, in Marian's scheme:
    every matrix I8 with equal row scales 1 / quantMult and, where it is
    multiplied, its input range <name>_alpha; the rest float32."""
    out = {}
    for name, a in tensors.items():
        a = np.asarray(a)
        if a.dtype.kind != "f" or not is_matrix(name, a):
            out[name] = a.astype(np.float32) if a.dtype.kind == "f" else a
            continue
        q, mult = quantize_matrix(a)
        out[name] = q
        out[name + "_scale"] = np.full(a.shape[0], np.float32(1.0) / mult,
                                       np.float32)
        if name in alphas:
            out[name + "_alpha"] = np.array([alphas[name]], np.float32)
    return out


def multiplier(scales):
    """Marian's quantMult for a matrix whose heed row scales are all
    1 / quantMult: one for which float32 1 / quantMult gives them back."""
    scales = np.asarray(scales, np.float32)
    if scales.size == 0 or not np.all(scales == scales[0]) or \
            not scales[0] > 0:
        raise ValueError("an int8 matrix without one positive scale for "
                         "every row (not Marian's scheme)")
    s = scales[0]
    guess = np.float32(1) / s
    for m in (guess, np.nextafter(guess, np.float32(np.inf)),
              np.nextafter(guess, np.float32(0))):
        if np.float32(1) / m == s:
            return m
    return guess


def intgemm_blob(q, mult):
    """Marian's intgemm8 item data: the int8 values row-major, the float32
    quantMult, zeros up to a multiple of 256 bytes (as Marian writes it)."""
    blob = np.ascontiguousarray(q, np.int8).tobytes() + \
        np.array([mult], "<f4").tobytes()
    return blob + b"\0" * ((-len(blob)) % 256)


def marian_items(c, tensors, params):
    """An int8 file in Marian's scheme -> Marian's binary items
    [(name, type, shape, bytes)]: intgemm8 matrices (heed's (out, in) rows
    are the transposed B intgemm stores, under Marian's shape [in, out]),
    each input range as <name>_QuantMultA = 127 / alpha, the rest float32.
    params: marian.param_map(c)."""
    from marian import FLOAT32, INTGEMM8

    def quant_mult_a(marian_name, heed_name):
        alpha = np.float32(tensors[heed_name + "_alpha"][0])
        value = np.array([np.float32(127) / alpha], "<f4")
        return (marian_name + "_QuantMultA", FLOAT32, [1], value.tobytes())

    def floats(name, a):
        a = np.asarray(a, np.float32).reshape(1, -1)
        return (name, FLOAT32, list(a.shape), a.astype("<f4").tobytes())

    emb = output_embedding(c)
    items = [("Wemb", INTGEMM8, list(tensors[emb].shape),
              intgemm_blob(tensors[emb], multiplier(tensors[emb + "_scale"])))]
    # The output layer's input range (Bergamot refuses the model without).
    items.append(quant_mult_a("Wemb", emb))
    bias = np.zeros(c["target_vocab"], np.float32)
    if c["output_bias"]:
        bias = np.asarray(tensors["output_projection.bias"], np.float32)
    items.append(floats("decoder_ff_logit_out_b", bias))
    for heed, marian, kind in params:
        a = tensors[heed]
        if kind != "W":
            items.append(floats(marian, a))
            continue
        items.append((marian, INTGEMM8, [a.shape[1], a.shape[0]],
                      intgemm_blob(a, multiplier(tensors[heed + "_scale"]))))
        items.append(quant_mult_a(marian, heed))
    return sorted(items)


def encode(lines, lang, sp, config):
    """Source lines to translate into lang -> [(piece ids, tag id or
    None)]."""
    tags = config.get("target_tags", {})
    if tags and lang not in tags:
        raise ValueError(f"{lang}: not one of {sorted(tags)}")
    tag = sp.piece_to_id(tags[lang]) if tags else None
    return [(sp.encode(line.strip()), tag) for line in lines if line.strip()]


def read_texts(specs, sp, config):
    """["LANG:FILE", ...] -> [(piece ids, LANG's tag id or None)]."""
    sentences = []
    for spec in specs:
        lang, _, path = spec.partition(":")
        if not path:
            raise ValueError(f"--text {spec}: needs LANG:FILE")
        with open(path, encoding="utf-8") as f:
            sentences += encode(f, lang, sp, config)
    return sentences


def validation(n, sp, config):
    """The first n lines of Multi30k's validation set, each way."""
    import data
    en, de = data.multi30k("val")
    return encode(en[:n], "de", sp, config) + encode(de[:n], "en", sp, config)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--model", default="models/heed-en-de.heed",
                   help="the float model")
    p.add_argument("--text", action="append", metavar="LANG:FILE",
                   help="source lines to translate into LANG (repeatable); "
                   "default: the first --sentences of Multi30k's validation "
                   "set each way")
    p.add_argument("--sentences", type=int, default=100)
    p.add_argument("--out", required=True)
    args = p.parse_args()
    import sentencepiece as spm
    import torch
    import marian
    from transformer import Transformer, load_heed_tensors
    # One sentence at a time: the matrices are too small for threads.
    torch.set_num_threads(1)
    _, config, tensors = heedfile.read(args.model)
    if marian.is_int8(tensors):
        sys.exit("marian_int8.py: an int8 model; use the float model")
    model = Transformer(config).eval()
    load_heed_tensors(model, tensors)
    sp = spm.SentencePieceProcessor(
        model_proto=bytes(tensors["tokenizer.source"]))
    try:
        sentences = read_texts(args.text, sp, config) if args.text else \
            validation(args.sentences, sp, config)
        if not sentences:
            raise ValueError("no calibration sentences")
        alphas = calibrate(model, sentences)
    except ValueError as e:
        sys.exit(f"marian_int8.py: {e}")
    heedfile.write(args.out, config, quantize(tensors, alphas), np.float32)
    print(f"marian_int8.py: {len(sentences)} sentences, {len(alphas)} "
          f"input ranges; wrote {args.out}")


if __name__ == "__main__":
    main()
