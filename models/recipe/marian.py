#!/usr/bin/python3
"""heed models as Marian models, for Marian and Bergamot's engines.

  /usr/bin/python3 models/recipe/marian.py export \\
      --model models/heed-en-de.heed --out models/work/marian
  /usr/bin/python3 models/recipe/marian.py conventions \\
      --model OLD.heed --out NEW.heed

`export` writes OUT/model.bin (Marian's binary format, with its config as
`special:model.yml`), OUT/vocab.src.spm and OUT/vocab.trg.spm (the
model's SentencePiece model; the source one without its dummy prefix, see
below) and OUT/config.yml (the options Bergamot's engine needs beside the
model). The translation is the same function when the model follows
Marian's two conventions, which heed's config names:

- `positions: halves`: Marian's sinusoid puts the sines before the cosines
  and spaces its timescales over d/2 - 1 steps (tensor2tensor's), where the
  paper interleaves them over d/2. Marian's learned positions cannot stand
  in: its decoder gives every step position 0 of them.
- `decoder_start: zeros`: Marian's decoder starts from a zero vector, not
  from the <s> embedding.

`conventions` rewrites a model for both: it permutes every d_model axis so
the interleaved sinusoid becomes halves (exactly the same function), then
switches to Marian's timescales and zero start, which changes it; a short
fine-tuning run (continue.sh --warm-start) brings it back.

Marian encodes raw text with SentencePiece, which puts a lone "▁" before a
leading "<2de>" tag, so the source vocabulary is the model without the
dummy prefix ("<2de> Ein Satz." then gives heed's pieces). Two differences
remain, both measured (models/recipe/bergamot.py): Marian's LayerNorm ε is
1e-6 where heed's config names its own (1e-5, kept in the model.yml as
heed-layer-norm-eps for the way back), and heed never outputs padding where
Marian may (its logit is trained low).

Only what both engines share is exported: post-norm, ReLU, one shared
vocabulary and tied output; anything else is refused with the reason.
"""
import argparse
import os
import struct
import sys

import numpy as np
import yaml

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import heedfile  # noqa: E402
from transformer import full_config  # noqa: E402

# Marian's Type enum (src/common/types.h).
FLOAT32 = 0x404
INT8 = 0x101
INTGEMM8 = 0x4101  # int8 + intgemm_type: row-major, not yet prepared
BINARY_VERSION = 1


def is_int8(tensors):
    return any(np.asarray(a).dtype == np.int8 for a in tensors.values())


def _refuse_int8(tensors):
    if is_int8(tensors):
        sys.exit("marian.py: an int8 model file; use the float model it was "
                 "quantised from")


def _check_exportable(c):
    problems = []
    if c["positions"] != "halves" or c["decoder_start"] != "zeros":
        problems.append("heed's own positions or decoder start (run "
                        "`marian.py conventions` and fine-tune first)")
    if c["pre_norm"]:
        problems.append("pre-norm sublayers")
    if c["activation"] != "relu":
        problems.append(f"activation {c['activation']} (exported: relu)")
    if not (c["shared_embeddings"] and c["tied_output"]):
        problems.append("separate embeddings (exported: one shared table)")
    if not c["scale_embeddings"]:
        problems.append("unscaled embeddings")
    if problems:
        sys.exit("marian.py: cannot export " + "; ".join(problems))


def param_map(c):
    """(heed name, Marian name, kind) of every layer parameter; kind is
    "W" (heed's (out, in) is Marian's [in, out]), "b" (Marian's [1, n]) or
    "ln" (LayerNorm scale and bias, [1, d])."""
    out = []

    def attention(heed, marian):
        for proj, name in (("q", "q"), ("k", "k"), ("v", "v"), ("out", "o")):
            out.append((f"{heed}.{proj}_proj.weight", f"{marian}_W{name}",
                        "W"))
            out.append((f"{heed}.{proj}_proj.bias", f"{marian}_b{name}", "b"))

    def norm(heed, marian):
        out.append((heed + ".weight", marian + "_ln_scale", "ln"))
        out.append((heed + ".bias", marian + "_ln_bias", "ln"))

    def ffn(heed, marian):
        for i in (1, 2):
            out.append((f"{heed}.fc{i}.weight", f"{marian}_W{i}", "W"))
            out.append((f"{heed}.fc{i}.bias", f"{marian}_b{i}", "b"))
        norm(heed + ".final_layer_norm", marian + "_ffn")

    for i in range(c["encoder_layers"]):
        h, m = f"encoder.layers.{i}", f"encoder_l{i + 1}"
        attention(h + ".self_attn", m + "_self")
        norm(h + ".self_attn_layer_norm", m + "_self_Wo")
        ffn(h, m + "_ffn")
    for i in range(c["decoder_layers"]):
        h, m = f"decoder.layers.{i}", f"decoder_l{i + 1}"
        attention(h + ".self_attn", m + "_self")
        norm(h + ".self_attn_layer_norm", m + "_self_Wo")
        attention(h + ".encoder_attn", m + "_context")
        norm(h + ".encoder_attn_layer_norm", m + "_context_Wo")
        ffn(h, m + "_ffn")
    return out


def marian_tensors(c, tensors):
    """heed config and tensors -> Marian parameter name -> float32 array."""
    bias = np.zeros((1, c["target_vocab"]), np.float32)
    if c["output_bias"]:
        bias[0] = tensors["output_projection.bias"]
    out = {"Wemb": tensors["encoder.embed_tokens.weight"].astype(np.float32),
           "decoder_ff_logit_out_b": bias}
    for heed, marian, kind in param_map(c):
        a = np.asarray(tensors[heed], np.float32)
        out[marian] = np.ascontiguousarray(a.T if kind == "W" else
                                           a.reshape(1, -1))
    return out


def model_yml(c):
    """Marian's options for this model (stored as special:model.yml)."""
    v = c["source_vocab"]
    lines = [
        "type: transformer",
        f"dim-emb: {c['d_model']}",
        "dim-vocabs:", f"  - {v}", f"  - {c['target_vocab']}",
        f"enc-depth: {c['encoder_layers']}",
        f"dec-depth: {c['decoder_layers']}",
        f"transformer-heads: {c['heads']}",
        f"transformer-dim-ffn: {c['d_ff']}",
        f"transformer-decoder-dim-ffn: {c['d_ff']}",
        "transformer-ffn-depth: 2",
        "transformer-decoder-ffn-depth: 2",
        "transformer-ffn-activation: relu",
        "transformer-decoder-autoreg: self-attention",
        "transformer-preprocess: \"\"",
        "transformer-postprocess: dan",
        "transformer-postprocess-emb: d",
        "transformer-postprocess-top: \"\"",
        # Marian's option, and the name its transformer reads.
        "transformer-train-position-embeddings: false",
        "transformer-train-positions: false",
        "tied-embeddings: true",
        "tied-embeddings-src: true",
        "tied-embeddings-all: true",
        "enc-type: bidirectional",
        "bert-train-type-embeddings: false",
        "inference: true",
        # heed's own, which Marian ignores: import reads them back.
        f"heed-layer-norm-eps: {c['layer_norm_eps']!r}",
        f"heed-trained-max-length: {c['trained_max_length']}",
        "",
    ]
    return "\n".join(lines)


def write_bin(path, items):
    """items: list of (name, Marian type, shape, bytes) -> Marian's binary
    model file (src/common/binary.cpp)."""
    header = struct.pack("<QQ", BINARY_VERSION, len(items))
    names, shapes, data = b"", b"", b""
    for name, kind, shape, blob in items:
        encoded = name.encode() + b"\0"
        header += struct.pack("<QQQQ", len(encoded), kind, len(shape),
                              len(blob))
        names += encoded
        shapes += struct.pack(f"<{len(shape)}i", *shape)
        data += blob
    head = header + names + shapes
    # A u64 padding count, then that many zero bytes, so that the data
    # starts on a 256-byte boundary.
    offset = len(head) + 8
    padding = (-offset) % 256
    with open(path, "wb") as f:
        f.write(head + struct.pack("<Q", padding) + b"\0" * padding + data)


def read_bin(path):
    """Marian's binary model -> {name: (type, shape, bytes)}, checked."""
    with open(path, "rb") as f:
        blob = f.read()

    def need(end):
        if end > len(blob):
            raise ValueError(f"{path}: truncated Marian model")

    need(16)
    version, count = struct.unpack_from("<QQ", blob, 0)
    if version != BINARY_VERSION:
        raise ValueError(f"{path}: Marian binary version {version}, not 1")
    need(16 + 32 * count)
    heads = [struct.unpack_from("<QQQQ", blob, 16 + 32 * i)
             for i in range(count)]
    pos = 16 + 32 * count
    items = {}
    names = []
    for name_len, _, _, _ in heads:
        need(pos + name_len)
        names.append(blob[pos:pos + name_len].rstrip(b"\0").decode())
        pos += name_len
    shapes = []
    for _, _, rank, _ in heads:
        need(pos + 4 * rank)
        shapes.append(struct.unpack_from(f"<{rank}i", blob, pos))
        pos += 4 * rank
    need(pos + 8)
    (padding,) = struct.unpack_from("<Q", blob, pos)
    pos += 8 + padding
    for name, (_, kind, _, size), shape in zip(names, heads, shapes):
        need(pos + size)
        items[name] = (kind, shape, blob[pos:pos + size])
        pos += size
    return items


def export(model_path, out):
    _, config, tensors = heedfile.read(model_path)
    c = full_config(config)
    int8 = is_int8(tensors)
    if int8 and not any(n.endswith("_alpha") for n in tensors):
        sys.exit("marian.py: an int8 file in heed's own scheme (a scale per "
                 "row); export the float model, or one quantised in "
                 "Marian's scheme (marian_int8.py)")
    _check_exportable(c)
    source = bytes(tensors["tokenizer.source"])
    target = bytes(tensors["tokenizer.target"])
    if source != target:
        sys.exit("marian.py: cannot export separate source and target "
                 "tokenizers with one shared embedding")
    if int8:
        import marian_int8
        items = marian_int8.marian_items(c, tensors, param_map(c))
    else:
        params = marian_tensors(c, tensors)
        items = [(name, FLOAT32, list(a.shape), a.astype("<f4").tobytes())
                 for name, a in sorted(params.items())]
    yml = model_yml(c).encode() + b"\0"
    items.append(("special:model.yml", INT8, [len(yml)], yml))
    os.makedirs(out, exist_ok=True)
    write_bin(os.path.join(out, "model.bin"), items)
    with open(os.path.join(out, "vocab.src.spm"), "wb") as f:
        # Without tags, sources start with text, which needs the prefix.
        f.write(without_dummy_prefix(source) if c["target_tags"] else source)
    with open(os.path.join(out, "vocab.trg.spm"), "wb") as f:
        f.write(target)
    with open(os.path.join(out, "config.yml"), "w") as f:
        f.write(bergamot_config("int8shiftAlphaAll" if int8 else
                                "int8shiftAll"))
    print(f"marian.py: wrote {out}/model.bin ({len(items)} tensors"
          f"{', intgemm8' if int8 else ''}), vocab.src.spm, vocab.trg.spm, "
          "config.yml")


def without_dummy_prefix(spm_model):
    """The SentencePiece model with add_dummy_prefix off (normalizer_spec
    field 3 of the ModelProto)."""
    from sentencepiece import sentencepiece_model_pb2 as pb
    proto = pb.ModelProto()
    proto.ParseFromString(spm_model)
    proto.normalizer_spec.add_dummy_prefix = False
    return proto.SerializeToString()


def bergamot_config(precision):
    """Options for Bergamot's engine beside the model: `precision` is
    int8shiftAll (Marian quantises a float model as it loads it) or
    int8shiftAlphaAll (intgemm8 matrices with their input ranges)."""
    return "\n".join([
        "beam-size: 1", "normalize: 1.0", "word-penalty: 0",
        f"gemm-precision: {precision}", "skip-cost: true",
        # heed may output <unk>; Marian suppresses it unless allowed.
        "allow-unk: true",
        # Every sentence needs its language tag in front: the caller splits
        # the text (heed's split) and sends one sentence per line.
        "ssplit-mode: sentence",
        "inference: true", ""])


def read_marian(path):
    """A Marian model (.npz or the binary format) -> (its options from
    special:model.yml, {parameter name: float32 array})."""
    import yaml
    raw = {}
    if path.endswith(".npz"):
        with np.load(path) as npz:
            for name in npz.files:
                a = npz[name]
                if name == "special:model.yml":
                    raw[name] = (INT8, a.shape, a.tobytes())
                elif a.dtype != np.float32:
                    raise ValueError(f"{name}: {a.dtype} (heed reads float32 "
                                     "Marian models)")
                else:
                    raw[name] = (FLOAT32, a.shape, a.tobytes())
    else:
        raw = read_bin(path)
    if "special:model.yml" not in raw:
        raise ValueError(f"{path}: no special:model.yml (not a Marian model, "
                         "or one saved without its config)")
    text = raw.pop("special:model.yml")[2].rstrip(b"\0").decode("utf-8")
    options = yaml.safe_load(text)
    if not isinstance(options, dict):
        raise ValueError(f"{path}: special:model.yml is not a mapping")
    params = {}
    for name, (kind, shape, blob) in raw.items():
        if kind != FLOAT32:
            raise ValueError(
                f"{name}: Marian type {kind:#x}; heed reads float32 models "
                "(quantised intgemm8/int8 ones lose the float weights)")
        count = int(np.prod(shape, dtype=np.int64)) if shape else 1
        if any(n <= 0 for n in shape) or count * 4 != len(blob):
            raise ValueError(f"{name}: shape {list(shape)} does not match its "
                             f"{len(blob)} bytes")
        params[name] = np.frombuffer(blob, "<f4").reshape(shape)
    return options, params


# Marian options heed cannot honour, with the value heed needs.
_REQUIRED = {"type": "transformer", "transformer-preprocess": "",
             "transformer-postprocess": "dan",
             "transformer-train-positions": False,
             "transformer-train-position-embeddings": False,
             "transformer-decoder-autoreg": "self-attention",
             "transformer-ffn-depth": 2}
# Marian's gelu is x·σ(1.702x), neither of heed's: refused.
_ACTIVATIONS = {"relu": "relu", "swish": "silu"}


def _check_importable(o, params):
    problems = []
    for key, want in _REQUIRED.items():
        got = o.get(key, want)
        if (got or "") != (want or "") and got != want:
            problems.append(f"{key}: {got!r} (heed runs {want!r})")
    for key in ("transformer-postprocess-emb",):
        if o.get(key, "d") not in ("d", ""):
            problems.append(f"{key}: {o[key]!r} (heed runs 'd')")
    if o.get("right-left"):
        problems.append("right-left: true (a right-to-left decoder)")
    if not isinstance(o.get("transformer-ffn-activation", "swish"), str) or \
            o.get("transformer-ffn-activation", "swish") not in _ACTIVATIONS:
        problems.append("transformer-ffn-activation: "
                        f"{o['transformer-ffn-activation']!r}")
    for key in ("transformer-decoder-dim-ffn", "transformer-decoder-ffn-depth"):
        if o.get(key, 0) not in (0, None) and o[key] != o.get(
                key.replace("decoder-", ""), o[key]):
            problems.append(f"{key}: {o[key]} differs from the encoder's "
                            "(heed has one feed-forward size)")
    if any(k.endswith("_Wt") or "factor" in k.lower() for k in params):
        if "decoder_ff_logit_out_Wt" not in params or any(
                "factor" in k.lower() for k in params):
            problems.append("factored vocabulary")
    if any("_rnn" in k or "_ssru" in k.lower() for k in params):
        problems.append("an RNN/SSRU decoder")
    if problems:
        raise ValueError("unsupported Marian model: " + "; ".join(problems))


def _spm_ids(spm_model):
    import sentencepiece as spm
    sp = spm.SentencePieceProcessor(model_proto=spm_model)
    return sp


def _with_dummy_prefix_of(source, target):
    """The source SentencePiece model, with its dummy prefix back when it
    is the target's without it (what export writes)."""
    if source != target and without_dummy_prefix(target) == source:
        return target
    return source


def heed_from_marian(options, params, source_spm, target_spm):
    """Marian options, parameters and SentencePiece models -> heed config
    and tensors (F32)."""
    o = options
    _check_importable(o, params)
    source_spm = _with_dummy_prefix_of(source_spm, target_spm)
    sp = _spm_ids(target_spm)
    dims = o.get("dim-vocabs") or []
    if len(dims) != 2:
        raise ValueError(f"dim-vocabs: {dims!r} (expected source and target)")
    d = int(o.get("dim-emb", 512))
    heads = int(o.get("transformer-heads", 8))
    config = {
        "d_model": d, "heads": heads,
        "d_ff": int(o.get("transformer-dim-ffn", 2048)),
        "encoder_layers": int(o.get("enc-depth", 6)),
        "decoder_layers": int(o.get("dec-depth", 6)),
        "source_vocab": int(dims[0]), "target_vocab": int(dims[1]),
        "activation": _ACTIVATIONS[o.get("transformer-ffn-activation",
                                         "swish")],
        "pre_norm": False, "scale_embeddings": True,
        # Marian's ε, or heed's own when the model came from heed.
        "layer_norm_eps": float(o.get("heed-layer-norm-eps", 1e-6)),
        "positions": "halves", "decoder_start": "zeros",
        "eos_id": sp.eos_id(), "unk_id": sp.unk_id(),
        "trained_max_length": int(o.get("heed-trained-max-length",
                                        o.get("max-length", 256))),
        # The decoder starts from zeros: <s> is never read, and a
        # vocabulary without it (OPUS-MT's) names <pad> instead.
        "pad_id": sp.pad_id(),
        "bos_id": sp.bos_id() if sp.bos_id() >= 0 else sp.pad_id(),
    }
    for key in ("pad_id", "bos_id", "eos_id", "unk_id"):
        if config[key] < 0:
            raise ValueError(f"the SentencePiece model has no {key[:-3]} "
                             "piece (heed needs pad, bos, eos and unk)")
    all_tied = bool(o.get("tied-embeddings-all", False))
    src_tied = all_tied or bool(o.get("tied-embeddings-src", False))
    out_tied = all_tied or bool(o.get("tied-embeddings", False))
    config["shared_embeddings"] = src_tied
    config["tied_output"] = out_tied

    def take(name, shape):
        if name not in params:
            raise ValueError(f"missing parameter {name}")
        a = params.pop(name)
        if list(a.shape) != list(shape):
            raise ValueError(f"{name}: shape {list(a.shape)}, expected "
                             f"{list(shape)}")
        return np.array(a, np.float32)

    V_src, V_tgt, f = config["source_vocab"], config["target_vocab"], \
        config["d_ff"]
    tensors = {}
    if src_tied:
        tensors["encoder.embed_tokens.weight"] = take("Wemb", (V_src, d))
    else:
        tensors["encoder.embed_tokens.weight"] = take("encoder_Wemb",
                                                      (V_src, d))
        tensors["decoder.embed_tokens.weight"] = take("decoder_Wemb",
                                                      (V_tgt, d))
    if not out_tied:
        if "decoder_ff_logit_out_Wt" in params:
            tensors["output_projection.weight"] = take(
                "decoder_ff_logit_out_Wt", (V_tgt, d))
        else:
            tensors["output_projection.weight"] = take(
                "decoder_ff_logit_out_W", (d, V_tgt)).T.copy()
    bias = take("decoder_ff_logit_out_b", (1, V_tgt))[0]
    config["output_bias"] = bool(np.any(bias != 0.0))
    if config["output_bias"]:
        tensors["output_projection.bias"] = bias
    for heed, marian, kind in param_map(config):
        if kind == "W":
            a = params.get(marian)
            if a is None or a.ndim != 2:
                raise ValueError(f"missing or malformed parameter {marian}")
            expect = {"fc1": (d, f), "fc2": (f, d)}.get(
                heed.split(".")[-2], (d, d))
            tensors[heed] = take(marian, expect).T.copy()
        elif kind == "b":
            n = f if heed.endswith("fc1.bias") else d
            tensors[heed] = take(marian, (1, n))[0]
        else:
            tensors[heed] = take(marian, (1, d))[0]
    if params:
        raise ValueError("unknown Marian parameters (a feature heed does not "
                         "run): " + ", ".join(sorted(params)[:8]))
    tags = {}
    source_sp = _spm_ids(source_spm)
    for i in range(source_sp.get_piece_size()):
        piece = source_sp.id_to_piece(i)
        if len(piece) >= 5 and piece.startswith("<2") and piece.endswith(">"):
            tags[piece[2:-1]] = piece
        elif len(piece) >= 6 and piece.startswith(">>") and \
                piece.endswith("<<"):  # OPUS-MT's target labels
            tags[piece[2:-2]] = piece
    config["target_tags"] = tags
    tensors["tokenizer.source"] = np.frombuffer(source_spm, np.uint8)
    tensors["tokenizer.target"] = np.frombuffer(target_spm, np.uint8)
    if d % heads:
        raise ValueError(f"dim-emb {d} is not a multiple of "
                         f"transformer-heads {heads}")
    return config, tensors


def read_vocab_yml(path):
    """piece -> id of a Marian vocabulary file (vocab.yml, as OPUS-MT ships
    it), read line by line as CTranslate2 does: a YAML parser drops some of
    its entries. The ids must be 0 .. n-1, with </s> 0 and <unk> 1."""
    ids, key = {}, None
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip("\r\n")
            if not line.strip():
                continue
            if line.startswith("? "):  # a complex key, its value on the next
                key = line[2:]
                continue
            if key is None:
                key, _, value = line.rpartition(":")
            else:
                value = line.strip()[1:]
            try:
                piece, i = _yaml_scalar(key), int(value)
            except (ValueError, yaml.YAMLError):
                raise ValueError(f"{path}:{n}: not a 'piece: id' line") from None
            if piece in ids:
                raise ValueError(f"{path}:{n}: {piece!r} twice")
            ids[piece], key = i, None
    if sorted(ids.values()) != list(range(len(ids))):
        raise ValueError(f"{path}: the ids are not 0 .. {len(ids) - 1}")
    if ids.get("</s>") != 0 or ids.get("<unk>") != 1:
        raise ValueError(f"{path}: </s> must be 0 and <unk> 1 (Marian's)")
    return ids


def _yaml_scalar(text):
    text = text.strip()
    if text[:1] in ("'", '"'):
        value = yaml.safe_load(text)
        if not isinstance(value, str):
            raise ValueError(text)
        return value
    return text


def ordered_spm(spm_model, ids, name):
    """The SentencePiece model with the vocabulary's numbering: piece i is
    the model's id i (the text segments as before), a vocabulary entry the
    model lacks (the other language's pieces, a >>xx<< tag) is an UNUSED
    piece, never segmented, and a <pad> control piece follows at len(ids)
    (Marian has none; heed's engine needs one). Control pieces the
    vocabulary lacks (<s>) are dropped; a text piece it lacks is refused:
    Marian reads it as <unk>, which heed's tokeniser cannot do."""
    from sentencepiece import sentencepiece_model_pb2 as pb
    m = pb.ModelProto()
    m.ParseFromString(spm_model)
    own = {p.piece: p for p in m.pieces}
    lacking = [p.piece for p in m.pieces if p.piece not in ids and p.type in (
        pb.ModelProto.SentencePiece.NORMAL,
        pb.ModelProto.SentencePiece.USER_DEFINED)]
    if lacking:
        raise ValueError(f"{name}: {len(lacking)} pieces are not in the "
                         f"vocabulary (e.g. {lacking[:3]}); Marian reads them "
                         "as <unk>, heed cannot")
    by_id = sorted(ids, key=ids.get)
    pieces = []
    for piece in by_id:
        p = pb.ModelProto.SentencePiece()
        if piece in own:
            p.CopyFrom(own[piece])
        else:
            p.piece, p.score = piece, 0.0
            p.type = pb.ModelProto.SentencePiece.UNUSED
        pieces.append(p)
    if "<pad>" in ids:
        raise ValueError(f"{name}: the vocabulary has <pad> (not Marian's)")
    pad = pb.ModelProto.SentencePiece(piece="<pad>", score=0.0,
                                      type=pb.ModelProto.SentencePiece.CONTROL)
    del m.pieces[:]
    m.pieces.extend(pieces + [pad])
    t = m.trainer_spec
    t.unk_id, t.eos_id, t.pad_id = ids["<unk>"], ids["</s>"], len(ids)
    t.bos_id = ids["<s>"] if "<s>" in ids else -1
    t.unk_piece, t.eos_piece, t.pad_piece = "<unk>", "</s>", "<pad>"
    t.vocab_size = len(ids) + 1
    return m.SerializeToString()


def with_pad_row(options, params):
    """Marian options and parameters with one more vocabulary row, the
    <pad> piece ordered_spm adds: a zero embedding, a zero output weight
    and an output bias of -1e4, so the model never writes it."""
    params = dict(params)
    for name in ("Wemb", "encoder_Wemb", "decoder_Wemb",
                 "decoder_ff_logit_out_Wt"):
        if name in params:
            a = params[name]
            params[name] = np.vstack([a, np.zeros((1, a.shape[1]), a.dtype)])
    if "decoder_ff_logit_out_W" in params:
        a = params["decoder_ff_logit_out_W"]
        params["decoder_ff_logit_out_W"] = np.hstack(
            [a, np.zeros((a.shape[0], 1), a.dtype)])
    b = params.get("decoder_ff_logit_out_b")
    if b is not None:
        params["decoder_ff_logit_out_b"] = np.hstack(
            [b, np.full((1, 1), -1e4, b.dtype)])
    options = dict(options)
    options["dim-vocabs"] = [int(v) + 1 for v in options.get("dim-vocabs")
                             or []]
    return options, params


def import_model(model, vocabs, out, float_dtype=np.float32, ids=None):
    try:
        _import_model(model, vocabs, out, float_dtype, ids)
    except ValueError:
        raise
    except Exception as e:  # a broken file: say so, whatever broke
        raise ValueError(f"{model}: not a Marian model heed can read "
                         f"({type(e).__name__}: {e})") from e


def _import_model(model, vocabs, out, float_dtype, ids):
    options, params = read_marian(model)
    spms = []
    for v in vocabs:
        with open(v, "rb") as f:
            spms.append(f.read())
    if len(spms) not in (1, 2):
        raise ValueError("--vocabs: one SentencePiece model, or source and "
                         "target")
    if ids:  # OPUS-MT: the vocabulary file numbers the pieces
        numbering = read_vocab_yml(ids)
        dims = options.get("dim-vocabs") or []
        if any(int(v) != len(numbering) for v in dims):
            raise ValueError(f"{ids}: {len(numbering)} pieces, the model's "
                             f"dim-vocabs {dims}")
        spms = [ordered_spm(m, numbering, v) for m, v in zip(spms, vocabs)]
        options, params = with_pad_row(options, params)
    config, tensors = heed_from_marian(options, dict(params), spms[0],
                                       spms[-1])
    heedfile.write(out, config, tensors, float_dtype)
    print(f"marian.py: wrote {out}")


def halves_order(d):
    """Dimension order that turns interleaved sin/cos pairs into halves:
    new dimension j is old dimension order[j]."""
    return np.concatenate([np.arange(0, d, 2), np.arange(1, d, 2)])


def to_marian_conventions(config, tensors):
    """A heed model rewritten for Marian's positions and decoder start:
    every d_model axis permuted so the interleaved sinusoid becomes halves
    (the same function, exactly), then positions "halves" (whose timescales
    differ slightly) and the zero start vector: close to the original, and
    exact after fine-tuning (train.py --warm-start keeps both settings)."""
    c = full_config(config)
    d = c["d_model"]
    order = halves_order(d)
    out = {}
    for name, a in tensors.items():
        if name.startswith("tokenizer."):
            out[name] = a
            continue
        a = np.asarray(a)
        if name.endswith("embed_tokens.weight") or name.endswith(
                ("q_proj.weight", "k_proj.weight", "v_proj.weight",
                 "fc1.weight")):
            a = a[:, order]  # d_model is the input (column) axis
        elif name.endswith(("out_proj.weight", "fc2.weight")):
            a = a[order, :]  # d_model is the output (row) axis
        elif name.endswith(("out_proj.bias", "fc2.bias")) or \
                "layer_norm" in name:
            a = a[order]
        elif name == "output_projection.weight":
            a = a[:, order]
        out[name] = np.ascontiguousarray(a)
    config = dict(config, positions="halves", decoder_start="zeros")
    return config, out


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="command", required=True)
    e = sub.add_parser("export", help="a .heed model -> a Marian model")
    e.add_argument("--model", default="models/heed-en-de.heed")
    e.add_argument("--out", required=True)
    v = sub.add_parser("conventions",
                       help="a .heed model rewritten for Marian's positions "
                       "and decoder start (to fine-tune before export)")
    v.add_argument("--model", default="models/heed-en-de.heed")
    v.add_argument("--out", required=True)
    m = sub.add_parser("import", help="a Marian model (.npz or .bin) and "
                       "its SentencePiece model(s) -> a .heed model")
    m.add_argument("--model", required=True)
    m.add_argument("--vocabs", nargs="+", required=True,
                   help="one SentencePiece model, or the source's and the "
                   "target's")
    m.add_argument("--ids", metavar="VOCAB_YML",
                   help="the vocabulary that numbers the pieces (OPUS-MT's "
                   "*.vocab.yml)")
    m.add_argument("--out", required=True)
    m.add_argument("--f16", action="store_true",
                   help="store the weights as float16 (half the size)")
    args = p.parse_args()
    if args.command == "export":
        export(args.model, args.out)
    elif args.command == "import":
        try:
            import_model(args.model, args.vocabs, args.out,
                         np.float16 if args.f16 else np.float32, args.ids)
        except ValueError as e:
            sys.exit(f"marian.py: {e}")
    else:
        _, config, tensors = heedfile.read(args.model)
        _refuse_int8(tensors)
        if full_config(config)["positions"] != "interleaved":
            sys.exit("marian.py: the model already has Marian's positions")
        config, tensors = to_marian_conventions(config, tensors)
        heedfile.write(args.out, config, tensors, np.float16)
        print(f"marian.py: wrote {args.out}")


if __name__ == "__main__":
    main()
