"""models/eval/heads.json (the page's Heads panel, docs/heads.md) is the
shipped model's: models/recipe/heads.py --check recomputes the head roles
over the test sets with the heed CLI and compares. importance.json and
lengths.json (the What matters view, docs/heads.md; a quarter of an hour
to recompute) name the model they were measured on by its SHA-256.

  python3 -m unittest tests/heads_test.py   (HEED_BIN: the heed CLI)
"""
import hashlib
import json
import os
import subprocess
import sys
import unittest

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
HEED = os.environ.get("HEED_BIN", os.path.join(ROOT, "build", "release",
                                               "heed"))


class HeadsTest(unittest.TestCase):
    def test_shipped_roles_are_the_models(self):
        run = subprocess.run(
            [sys.executable, os.path.join(ROOT, "models", "recipe", "heads.py"),
             "--check", "--heed", HEED], capture_output=True, text=True)
        self.assertEqual(run.returncode, 0, run.stderr + run.stdout)
        self.assertIn("matches the model", run.stdout)

    def test_importance_and_lengths_were_measured_on_the_shipped_model(self):
        with open(os.path.join(ROOT, "models", "heed-en-de-int8.heed"),
                  "rb") as f:
            shipped = hashlib.sha256(f.read()).hexdigest()
        for name in ("importance.json", "lengths.json"):
            with open(os.path.join(ROOT, "models", "eval", name)) as f:
                measured = json.load(f)["model_sha256"]
            self.assertEqual(measured, shipped,
                             f"models/eval/{name} is another model's: run "
                             f"models/recipe/{name.split('.')[0]}.py")


if __name__ == "__main__":
    unittest.main()
