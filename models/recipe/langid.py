"""The language detector heed ships: character n-grams, naive Bayes.

    /usr/bin/python3 models/recipe/langid.py [--buckets 65536]

Each word (a run of letters, lower-cased, NFC) padded with spaces gives its
1- to 4-character substrings; each is hashed (FNV-1a, 32-bit, of its UTF-8
bytes) into one of B buckets. Per class (en, de, und: French and Czech
text, so that a language heed does not know is "und") the log-probability
of each bucket is estimated with add-one smoothing from the training text
and kept as an unsigned byte (scale and offset per class). A text's
confidences are the softmax of its summed log-probabilities divided by a
temperature fitted on held-out training text. wasm/language-detector.js
reads the file this writes (models/langid-en-de.json) with the same
arithmetic; models/eval/langid.json holds the scores and a golden of
confidences that tests/wasm/language-detector.test.mjs compares with.

Trained on Multi30k train, Anki, the WMT news the translation model trains
on, and Multi30k train French and Czech; tested on Tatoeba test
(v2021-08-07, both sides; held out, as in data.py), on its sentences cut to
their first 1, 2 and 3 words, and on Multi30k test_2016 French and Czech.
"""
import argparse
import base64
import json
import math
import os
import random
import sys
import unicodedata

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import data  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
MODELS = os.path.normpath(os.path.join(HERE, ".."))
CLASSES = ["en", "de", "und"]
MAX_N = 4


def words(text):
    """Runs of letters (Unicode categories L*), lower-cased, after NFC."""
    text = unicodedata.normalize("NFC", text).lower()
    out, cur = [], []
    for c in text:
        if c.isalpha():
            cur.append(c)
        elif cur:
            out.append("".join(cur))
            cur = []
    if cur:
        out.append("".join(cur))
    return out


def fnv1a(b):
    h = 0x811C9DC5
    for x in b:
        h = ((h ^ x) * 0x01000193) & 0xFFFFFFFF
    return h


_HASHES = {}


def features(text, buckets):
    """The bucket of every 1..4-character substring of each padded word."""
    out = []
    for w in words(text):
        s = " " + w + " "
        for n in range(1, MAX_N + 1):
            for i in range(len(s) - n + 1):
                g = s[i:i + n]
                if g.strip():
                    h = _HASHES.get(g)
                    if h is None:
                        h = _HASHES[g] = fnv1a(g.encode("utf-8"))
                    out.append(h & (buckets - 1))
    return out


def corpus():
    """(text, class index) training lines, none of them held out."""
    held = data.held_out_strings()
    en, de = data.multi30k("train")
    for name in data.TRAIN_NEWS:
        e, d = data.testset("deu-eng/" + name)
        en += e
        de += d
    for e, d in data.anki():
        en.append(e)
        de.append(d)
    und = (data._lines(os.path.join(data.M30K, "train.fr.gz")) +
           data._lines(os.path.join(data.M30K, "train.cs.gz")))
    lines = []
    for k, side in enumerate([en, de, und]):
        lines += [(s, k) for s in side if s.strip() and data.norm(s) not in held]
    return lines


def train(lines, buckets):
    counts = np.ones((len(CLASSES), buckets))  # add-one smoothing
    for k in range(len(CLASSES)):
        f = [b for text, c in lines if c == k for b in features(text, buckets)]
        counts[k] += np.bincount(f, minlength=buckets)
    return np.log(counts / counts.sum(axis=1, keepdims=True))


def quantize(logp):
    """Per class: byte q with logp ≈ offset + q * scale (q in 0..255)."""
    lo, hi = logp.min(axis=1), logp.max(axis=1)
    scale = (hi - lo) / 255.0
    q = np.rint((logp - lo[:, None]) / scale[:, None]).astype(np.uint8)
    return q, lo, scale


def scores(table, text, buckets):
    f = features(text, buckets)
    return table[:, f].sum(axis=1) if f else None


def confidences(s, temperature):
    z = s / temperature
    z = np.exp(z - z.max())
    return z / z.sum()


def fit_temperature(table, lines, buckets):
    """The temperature of least log loss on `lines`, on a log grid."""
    s = [(scores(table, t, buckets), k) for t, k in lines]
    s = [(v, k) for v, k in s if v is not None]
    best = None
    for t in np.exp(np.linspace(0, math.log(200), 60)):
        loss = -sum(math.log(max(confidences(v, t)[k], 1e-12)) for v, k in s)
        if best is None or loss < best[0]:
            best = (loss, float(t))
    return best[1]


def accuracy(table, t, texts, k, buckets):
    right = 0
    for text in texts:
        v = scores(table, text, buckets)
        if v is not None and int(np.argmax(v)) == k:
            right += 1
    return right / max(1, len(texts))


def prefix(text, n):
    return " ".join(text.split()[:n])


def evaluate(table, t, buckets):
    en, de = data.testset("deu-eng/tatoeba-test-v2021-08-07")
    res = {"tatoeba-test-v2021-08-07": {
        "en": accuracy(table, t, en, 0, buckets),
        "de": accuracy(table, t, de, 1, buckets), "sentences": len(en)}}
    for n in (1, 2, 3):
        res[f"first {n} words"] = {
            "en": accuracy(table, t, [prefix(s, n) for s in en], 0, buckets),
            "de": accuracy(table, t, [prefix(s, n) for s in de], 1, buckets)}
    und = []
    for lang in ("fr", "cs"):
        und += data._lines(os.path.join(data.M30K, f"test_2016_flickr.{lang}.gz"))
    res["multi30k test_2016 fr+cs as und"] = accuracy(table, t, und, 2, buckets)
    return res, en, de


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--buckets", type=int, default=65536)
    args = ap.parse_args()
    B = args.buckets
    assert B & (B - 1) == 0, "buckets must be a power of two"
    lines = corpus()
    random.Random(3).shuffle(lines)
    dev, fit = lines[:3000], lines[3000:]
    q, lo, scale = quantize(train(fit, B))
    table = lo[:, None] + q.astype(np.float64) * scale[:, None]
    t = fit_temperature(table, dev, B)
    res, en, de = evaluate(table, t, B)
    print(json.dumps(res, indent=1))
    model = {"format": "heed-langid", "version": 1, "languages": CLASSES,
             "maxN": MAX_N, "buckets": B, "temperature": t,
             "offset": lo.tolist(), "scale": scale.tolist(),
             "table": base64.b64encode(q.tobytes()).decode("ascii")}
    with open(os.path.join(MODELS, "langid-en-de.json"), "w") as f:
        json.dump(model, f)
    golden = []
    for text in en[:20] + de[:20] + ["Bonjour tout le monde", "Hund",
                                     "the", "Straße", "  ", "42!"]:
        v = scores(table, text, B)
        golden.append({"text": text, "confidences":
                       None if v is None else confidences(v, t).tolist()})
    with open(os.path.join(MODELS, "eval", "langid.json"), "w") as f:
        json.dump({"scores": res, "golden": golden}, f, indent=1,
                  ensure_ascii=False)


if __name__ == "__main__":
    main()
