"""models/eval/heads.json (the page's Heads panel, docs/heads.md) is the
shipped model's: models/recipe/heads.py --check recomputes the head roles
over the test sets with the heed CLI and compares.

  python3 -m unittest tests/heads_test.py   (HEED_BIN: the heed CLI)
"""
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


if __name__ == "__main__":
    unittest.main()
