"""Writes and reads heed model files (models/FORMAT.md).

The layout is safetensors: an 8-byte little-endian header length, a JSON
header, then the raw little-endian tensor bytes. The header's __metadata__
holds the format version and the model config as a JSON string; the
SentencePiece models travel as U8 tensors.
"""
import json
import struct

import numpy as np

FORMAT_VERSION = 1
_DTYPES = {np.dtype(np.float32): "F32", np.dtype(np.float16): "F16",
           np.dtype(np.int8): "I8", np.dtype(np.uint8): "U8"}
_NUMPY = {v: k for k, v in _DTYPES.items()}


def write(path, config, tensors, float_dtype=np.float32):
    """config: dict; tensors: name -> array. Floating arrays are stored as
    float_dtype (float32 or float16); uint8/int8 arrays as they are."""
    arrays = {}
    for name, value in tensors.items():
        a = np.asarray(value)
        if a.dtype.kind == "f":
            a = a.astype(float_dtype)
        if a.dtype not in _DTYPES:
            raise ValueError(f"{name}: unsupported dtype {a.dtype}")
        arrays[name] = np.ascontiguousarray(a)
    header = {"__metadata__": {"format": "heed",
                               "format_version": str(FORMAT_VERSION),
                               "config": json.dumps(config, sort_keys=True)}}
    offset = 0
    order = sorted(arrays)
    for name in order:
        a = arrays[name]
        # Keep every tensor 4-byte aligned so F32 data is read in place.
        pad = (-offset) % 4
        offset += pad
        header[name] = {"dtype": _DTYPES[a.dtype], "shape": list(a.shape),
                        "data_offsets": [offset, offset + a.nbytes]}
        offset += a.nbytes
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * ((-len(text)) % 8)  # data starts 8-byte aligned
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        pos = 0
        for name in order:
            begin = header[name]["data_offsets"][0]
            f.write(b"\0" * (begin - pos))
            f.write(arrays[name].tobytes())
            pos = begin + arrays[name].nbytes


def read(path):
    """Returns (metadata dict, config dict, name -> numpy array)."""
    with open(path, "rb") as f:
        blob = f.read()
    (n,) = struct.unpack("<Q", blob[:8])
    header = json.loads(blob[8:8 + n])
    meta = header.pop("__metadata__", {})
    base = 8 + n
    tensors = {}
    for name, info in header.items():
        b, e = info["data_offsets"]
        tensors[name] = np.frombuffer(blob[base + b:base + e],
                                      dtype=_NUMPY[info["dtype"]]).reshape(
                                          info["shape"])
    return meta, json.loads(meta.get("config", "{}")), tensors
