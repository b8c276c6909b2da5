"""What the golden scripts share: the fixture folder, a fixture model read
into the PyTorch reference (models/recipe/transformer.py), and each head's
output through W_O."""
import json
import os
import sys

import torch

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
FIXTURES = os.path.join(ROOT, "tests", "fixtures")
sys.path.insert(0, os.path.join(ROOT, "models", "recipe"))
import heedfile  # noqa: E402
from transformer import Transformer, load_heed_tensors  # noqa: E402


def read(name):
    """(config, tensors, inputs) of tests/fixtures/NAME.heed and NAME.json
    (make_fixtures.py's sources, texts and forced outputs)."""
    _, config, tensors = heedfile.read(os.path.join(FIXTURES, name + ".heed"))
    with open(os.path.join(FIXTURES, name + ".json")) as f:
        return config, tensors, json.load(f)


def load(name):
    """(the reference model in eval mode with the fixture's weights, inputs)."""
    config, tensors, inputs = read(name)
    model = Transformer(config).eval()
    load_heed_tensors(model, tensors)
    return model, inputs


def head_outputs(mha, value, heads, dtype=torch.float32):
    """(heads, n, d): (x_j W_V + b_V)^h W_O^h for the value inputs (n, d),
    computed in dtype."""
    d = value.shape[-1]
    dk = d // heads
    w = mha.in_proj_weight.to(dtype)
    v = value.to(dtype) @ w[2 * d:].T + mha.in_proj_bias.to(dtype)[2 * d:]
    out = mha.out_proj.weight.to(dtype)
    return torch.stack([v[:, h * dk:(h + 1) * dk] @ out[:, h * dk:(h + 1) * dk].T
                        for h in range(heads)])
