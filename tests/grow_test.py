"""Growing a model (models/recipe/grow.py): the grown model's logits are the
original's, in PyTorch, before any training; and the new weights are ones
training can move."""
import os
import sys
import unittest

import numpy as np
import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "models",
                                "recipe"))
import grow  # noqa: E402
from transformer import (Transformer, heed_tensors,  # noqa: E402
                         load_heed_tensors)

CONFIG = {"d_model": 16, "heads": 2, "d_ff": 32, "encoder_layers": 2,
          "decoder_layers": 2, "source_vocab": 40, "target_vocab": 40,
          "activation": "relu", "pre_norm": False, "shared_embeddings": True,
          "tied_output": True, "target_tags": {"de": "<2de>", "en": "<2en>"},
          "trained_max_length": 16}


def trained_like():
    """A model whose layer norms are not at their initial 1 and 0, as a
    trained model's are not."""
    torch.manual_seed(3)
    model = Transformer(CONFIG).eval()
    with torch.no_grad():
        for name, p in model.named_parameters():
            if "norm" in name:
                p.add_(torch.randn_like(p) * 0.3)
    return model


def logits(config, tensors, src, tgt):
    model = Transformer(config).eval()
    load_heed_tensors(model, tensors)
    with torch.no_grad():
        return model(src, tgt)


class Grow(unittest.TestCase):
    def setUp(self):
        self.model = trained_like()
        self.tensors = heed_tensors(self.model)
        g = torch.Generator().manual_seed(5)
        self.src = torch.randint(4, 40, (3, 7), generator=g)
        self.tgt = torch.randint(4, 40, (3, 5), generator=g)
        self.want = logits(CONFIG, self.tensors, self.src, self.tgt)

    def check_same(self, d_ff, encoder_layers):
        config, tensors = grow.grow(CONFIG, self.tensors, d_ff,
                                    encoder_layers)
        self.assertEqual(config["d_ff"], d_ff)
        self.assertEqual(config["encoder_layers"], encoder_layers)
        got = logits(config, tensors, self.src, self.tgt)
        self.assertTrue(torch.allclose(got, self.want, atol=1e-4),
                        float((got - self.want).abs().max()))
        return config, tensors

    def test_wider_feed_forward_is_exact(self):
        _, tensors = self.check_same(48, 2)
        w1 = tensors["decoder.layers.1.fc1.weight"]
        w2 = tensors["decoder.layers.1.fc2.weight"]
        self.assertEqual(w1.shape, (48, 16))
        self.assertGreater(np.abs(w1[32:]).max(), 0)  # trainable units
        self.assertEqual(np.abs(w2[:, 32:]).max(), 0)

    def test_deeper_encoder_is_exact(self):
        _, tensors = self.check_same(32, 5)
        self.assertIn("encoder.layers.4.fc1.weight", tensors)
        self.assertEqual(
            np.abs(tensors["encoder.layers.3.self_attn.out_proj.weight"]
                   ).max(), 0)

    def test_both_at_once(self):
        self.check_same(64, 4)

    def test_an_inexact_growth_would_be_seen(self):
        # Keeping the last old layer's final norm (instead of moving it to
        # the new last layer) changes the output: the check above can fail.
        config, tensors = grow.grow(CONFIG, self.tensors, 32, 3)
        for kind in ("weight", "bias"):
            tensors[f"encoder.layers.1.final_layer_norm.{kind}"] = \
                self.tensors[f"encoder.layers.1.final_layer_norm.{kind}"]
        got = logits(config, tensors, self.src, self.tgt)
        self.assertFalse(torch.allclose(got, self.want, atol=1e-4))

    def test_shrinking_is_refused(self):
        with self.assertRaises(ValueError):
            grow.grow(CONFIG, self.tensors, 16, 2)
        with self.assertRaises(ValueError):
            grow.grow(CONFIG, self.tensors, 32, 1)

    def test_pre_norm_layers_are_refused(self):
        with self.assertRaises(ValueError):
            grow.grow(dict(CONFIG, pre_norm=True), self.tensors, 32, 3)


if __name__ == "__main__":
    unittest.main()
