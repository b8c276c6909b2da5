"""The BLEU and chrF scorer against hand-worked examples."""
import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "models",
                                "recipe"))
import score  # noqa: E402


class Tokenize13a(unittest.TestCase):
    def test_punctuation(self):
        self.assertEqual(score.tokenize_13a("Hello, world!"), "Hello , world !")
        self.assertEqual(score.tokenize_13a("The end."), "The end .")
        self.assertEqual(score.tokenize_13a("(a) [b]/c"), "( a ) [ b ] / c")

    def test_numbers_keep_separators(self):
        self.assertEqual(score.tokenize_13a("3.5 and 1,000"), "3.5 and 1,000")
        self.assertEqual(score.tokenize_13a("1990-2000"), "1990 - 2000")

    def test_entities(self):
        self.assertEqual(score.tokenize_13a("&quot;x&quot; &amp; y"),
                         '" x " & y')


class Bleu(unittest.TestCase):
    def test_identical_is_100(self):
        b = score.bleu(["a b c d e"], ["a b c d e"])
        self.assertAlmostEqual(b["score"], 100.0)

    def test_hand_worked(self):
        # Precisions 5/6, 3/5, 2/4, 1/3; equal lengths: (1/12)^(1/4).
        b = score.bleu(["the cat sat on the mat"], ["the cat sat on a mat"])
        self.assertAlmostEqual(b["score"], 100 * (1 / 12) ** 0.25, places=6)
        self.assertAlmostEqual(b["score"], 53.73, places=2)

    def test_brevity_penalty(self):
        # Precisions 5/5, 3/4, 2/3, 1/2 -> 0.25^(1/4); BP = exp(1 - 6/5).
        b = score.bleu(["the cat sat on mat"], ["the cat sat on the mat"])
        self.assertAlmostEqual(b["bp"], 0.818730753, places=6)
        self.assertAlmostEqual(b["score"], 57.89, places=2)

    def test_exponential_smoothing(self):
        # 4/5, 2/4, then no 3- or 4-gram matches: 1/(2·3) and 1/(4·2).
        b = score.bleu(["a b c d e"], ["a b x d e"])
        want = 100 * (0.8 * 0.5 * (1 / 6) * (1 / 8)) ** 0.25
        self.assertAlmostEqual(b["score"], want, places=6)
        self.assertAlmostEqual(b["score"], 30.21, places=2)

    def test_corpus_level_sums_counts(self):
        b = score.bleu(["the cat sat on the mat", "a b c d e"],
                       ["the cat sat on a mat", "a b c d e"])
        # 10/11, 7/9, 5/7, 3/5
        want = 100 * (10 / 11 * 7 / 9 * 5 / 7 * 3 / 5) ** 0.25
        self.assertAlmostEqual(b["score"], want, places=6)

    def test_too_short_is_zero(self):
        self.assertEqual(score.bleu(["the cat"], ["the cat sat"])["score"], 0)
        self.assertEqual(score.bleu([""], ["the cat sat"])["score"], 0)


class Chrf(unittest.TestCase):
    def test_identical_is_100(self):
        self.assertAlmostEqual(score.chrf(["a dog"], ["a dog"]), 100.0)

    def test_symmetric_hand_worked(self):
        # Orders 1-3 effective: P = R = (2/3 + 1/2 + 0) / 3.
        self.assertAlmostEqual(score.chrf(["abc"], ["abd"]),
                               100 * (2 / 3 + 1 / 2) / 3, places=6)

    def test_beta_weights_recall(self):
        # Orders 1-2 effective: P = (1/2 + 1/3)/2, R = 1; F2 = 5PR/(4P+R).
        p, r = (0.5 + 1 / 3) / 2, 1.0
        self.assertAlmostEqual(score.chrf(["abcd"], ["ab"]),
                               100 * 5 * p * r / (4 * p + r), places=6)
        self.assertAlmostEqual(score.chrf(["abcd"], ["ab"]), 78.125, places=3)

    def test_whitespace_is_ignored(self):
        self.assertAlmostEqual(score.chrf(["a b c"], ["abc"]), 100.0)

    def test_nothing_in_common(self):
        self.assertEqual(score.chrf(["xyz"], ["abc"]), 0.0)
        self.assertEqual(score.chrf([""], ["abc"]), 0.0)


if __name__ == "__main__":
    unittest.main()
