"""The measurements the page and docs/heads.md show name the model they were
measured on: models/eval/heads.json (head roles over the test sets, the
Head roles view), importance.json and lengths.json (the What matters view)
each hold the SHA-256 of the int8 model, which must be the shipped one.
They are recomputed from the test sets, which live outside the repository
(../shared/data), by models/recipe/{heads,importance,lengths}.py; heads.py
--check compares a fresh computation with the file.

  python3 -m unittest tests/heads_test.py
"""
import hashlib
import json
import os
import unittest

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")


class MeasuredOnTheShippedModelTest(unittest.TestCase):
    def test_each_file_names_the_shipped_model(self):
        with open(os.path.join(ROOT, "models", "heed-en-de-int8.heed"),
                  "rb") as f:
            shipped = hashlib.sha256(f.read()).hexdigest()
        for name in ("heads", "importance", "lengths", "quality"):
            with open(os.path.join(ROOT, "models", "eval",
                                   name + ".json")) as f:
                measured = json.load(f)["model_sha256"]
            self.assertEqual(measured, shipped,
                             f"models/eval/{name}.json is another model's: "
                             f"run models/recipe/{name}.py")


if __name__ == "__main__":
    unittest.main()
