"""The shipped int8 model (the page's) on the everyday set, with the CLI's
default decoding: no empty output, no loop, no wrong language.

  python3 -m unittest tests/everyday_test.py   (HEED_BIN: the heed CLI)
"""
import os
import subprocess
import sys
import unittest

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
sys.path.insert(0, os.path.join(ROOT, "models", "recipe"))
import everyday  # noqa: E402

HEED = os.environ.get("HEED_BIN", os.path.join(ROOT, "build", "release",
                                               "heed"))
MODEL = os.path.join(ROOT, "models", "heed-en-de-int8.heed")


def lines(name):
    with open(os.path.join(ROOT, "models", "eval", name),
              encoding="utf-8") as f:
        return f.read().splitlines()


def translate(text_lines, to):
    out = subprocess.run([HEED, "translate", "--model", MODEL, "--to", to],
                         input="\n".join(text_lines) + "\n",
                         capture_output=True, text=True, check=True)
    return out.stdout.split("\n")[:len(text_lines)]


class Checks(unittest.TestCase):
    """The checks themselves, on made-up outputs."""

    def test_loops(self):
        self.assertIsNotNone(everyday.loop("Abend Abend Abend."))
        self.assertIsNotNone(everyday.loop(
            "für zwei Personen für zwei Personen für zwei Personen"))
        self.assertIsNone(everyday.loop("Ich gehe, du gehst, er geht."))

    def test_language(self):
        self.assertEqual(everyday.language("Wo ist der Bahnhof?"), "de")
        self.assertEqual(everyday.language("Where is the station?"), "en")
        self.assertIsNone(everyday.language("Danke!"))
        # "an" and "was" are German words too.
        self.assertNotEqual(everyday.language("Mein Flug geht an sieben vorbei."), "en")
        self.assertNotEqual(everyday.language("Was ist das?"), "en")
        self.assertEqual(everyday.problems("", "de"), ["empty"])
        self.assertEqual(everyday.problems("Hello world. How is it?", "de"),
                         ["reads as en, not de"])


class Everyday(unittest.TestCase):
    def check(self, source, to):
        sources = lines(source)
        self.assertEqual(len(sources), 60)
        for src, hyp in zip(sources, translate(sources, to)):
            with self.subTest(source=src, translation=hyp):
                self.assertEqual(everyday.problems(hyp, to), [])

    def test_english_to_german(self):
        self.check("everyday.en", "de")

    def test_german_to_english(self):
        self.check("everyday.de", "en")


if __name__ == "__main__":
    unittest.main()
