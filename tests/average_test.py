"""Checkpoint averaging (models/recipe/average.py) against the mean taken
tensor by tensor, and train.py's snapshot pruning."""
import os
import sys
import tempfile
import unittest

import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "models",
                                "recipe"))
import average  # noqa: E402
from train import keep_snapshot  # noqa: E402
from transformer import Transformer  # noqa: E402

CONFIG = {"d_model": 8, "heads": 2, "d_ff": 16, "encoder_layers": 1,
          "decoder_layers": 1, "source_vocab": 20, "target_vocab": 20,
          "activation": "relu", "pre_norm": False, "shared_embeddings": True,
          "tied_output": True, "target_tags": {"de": "<2de>", "en": "<2en>"},
          "trained_max_length": 16}


def snapshot(folder, name, seed):
    torch.manual_seed(seed)
    model = Transformer(CONFIG)
    torch.save({"model": model.state_dict(), "config": CONFIG},
               os.path.join(folder, name))
    return model.state_dict()


class Average(unittest.TestCase):
    def test_mean_of_the_last_snapshots(self):
        with tempfile.TemporaryDirectory() as work:
            folder = os.path.join(work, "snapshots")
            os.makedirs(folder)
            states = []
            for i, seed in enumerate([1, 2, 3]):
                states.append(snapshot(folder, f"step-{i:07d}.pt", seed))
            model = average.averaged_model(work, 2)
            got = model.state_dict()
            for key, value in got.items():
                want = (states[1][key] + states[2][key]) / 2
                self.assertTrue(torch.allclose(value, want, atol=1e-7), key)
            # The first snapshot is not in it: its weights differ.
            key = "embed.weight"
            self.assertFalse(torch.allclose(got[key], (states[0][key] +
                                                       states[2][key]) / 2))

    def test_fewer_than_two_is_none(self):
        with tempfile.TemporaryDirectory() as work:
            folder = os.path.join(work, "snapshots")
            os.makedirs(folder)
            self.assertIsNone(average.averaged_model(work, 4))
            snapshot(folder, "only.pt", 1)
            self.assertIsNone(average.averaged_model(work, 4))
            self.assertIsNone(average.averaged_model(work, 0))

    def test_other_configuration_is_refused(self):
        with tempfile.TemporaryDirectory() as work:
            folder = os.path.join(work, "snapshots")
            os.makedirs(folder)
            snapshot(folder, "a.pt", 1)
            torch.manual_seed(2)
            other = dict(CONFIG, d_ff=32)
            torch.save({"model": Transformer(other).state_dict(),
                        "config": other}, os.path.join(folder, "b.pt"))
            with self.assertRaises(SystemExit):
                average.averaged_model(work, 2)


class KeepSnapshot(unittest.TestCase):
    def test_keeps_the_last_ones(self):
        with tempfile.TemporaryDirectory() as work:
            model = Transformer(CONFIG)
            for step in (100, 200, 300, 1000):
                keep_snapshot(work, step, model, CONFIG, 3)
            names = sorted(os.listdir(os.path.join(work, "snapshots")))
            self.assertEqual(names, ["step-0000200.pt", "step-0000300.pt",
                                     "step-0001000.pt"])


class AverageModelsTest(unittest.TestCase):
    def test_two_models_average_to_their_midpoint(self):
        import heedfile
        import numpy as np
        fixtures = os.path.join(os.path.dirname(__file__), "fixtures")
        _, config, a = heedfile.read(os.path.join(fixtures,
                                                  "tiny_postnorm.heed"))
        b = {k: (v * 3 if np.issubdtype(v.dtype, np.floating) else v)
             for k, v in a.items()}
        with tempfile.TemporaryDirectory() as tmp:
            pa, pb, out = (os.path.join(tmp, n) for n in ("a", "b", "m"))
            heedfile.write(pa, config, a)
            heedfile.write(pb, config, b)
            average.average_models([pa, pb], out)
            _, got_config, got = heedfile.read(out)
        self.assertEqual(got_config, config)
        for k, v in a.items():
            if np.issubdtype(v.dtype, np.floating):
                np.testing.assert_allclose(got[k].astype(np.float32), 2 * v,
                                           rtol=1e-3, atol=1e-3, err_msg=k)
            else:
                np.testing.assert_array_equal(got[k], v)


if __name__ == "__main__":
    unittest.main()
