"""Training and held-out data from ../shared/data (see its README).

Held out, never trained on: Multi30k val and every test split, every
Tatoeba test version, newstest2014 and newstest2018-2020. Every training
pair whose source or target occurs in a held-out set (after whitespace
normalisation) is removed.
"""
import gzip
import os

DATA = os.path.normpath(os.path.join(os.path.dirname(__file__), "..", "..",
                                     "..", "shared", "data"))
M30K = os.path.join(DATA, "multi30k")
TESTS = os.path.join(DATA, "testsets")

TRAIN_NEWS = ["news-test2008", "newstest2009", "newstest2010", "newstest2011",
              "newstest2012", "newstest2013", "newstest2015", "newstest2016",
              "newstest2017"]
HELD_OUT_M30K = ["val", "test_2016_flickr", "test_2017_flickr",
                 "test_2017_mscoco", "test_2018_flickr"]
HELD_OUT_TESTS = ["deu-eng/newstest2014", "deu-eng/newstest2018",
                  "deu-eng/newstest2019", "deu-eng/newstest2020",
                  "eng-deu/newstest2019", "eng-deu/newstest2020",
                  "deu-eng/tatoeba-test-v2020-07-28",
                  "deu-eng/tatoeba-test-v2021-03-30",
                  "deu-eng/tatoeba-test-v2021-08-07"]


def norm(s):
    return " ".join(s.split())


def _lines(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        return [line.rstrip("\n") for line in f]


def multi30k(split):
    """(en lines, de lines)."""
    return (_lines(os.path.join(M30K, f"{split}.en.gz")),
            _lines(os.path.join(M30K, f"{split}.de.gz")))


def testset(name):
    """(en lines, de lines) of testsets/<name>."""
    base = os.path.join(TESTS, name)
    return _lines(base + ".eng"), _lines(base + ".deu")


def held_out_strings():
    seen = set()
    for split in HELD_OUT_M30K:
        for side in multi30k(split):
            seen.update(norm(s) for s in side)
    for name in HELD_OUT_TESTS:
        for side in testset(name):
            seen.update(norm(s) for s in side)
    seen.discard("")
    return seen


def training_pairs():
    """[(en, de)] from Multi30k train, the Anki pairs and the training news
    sets, without any pair that touches a held-out set. Returns the pairs
    and a count of what was removed."""
    pairs = list(zip(*multi30k("train")))
    with open(os.path.join(DATA, "tatoeba", "anki-eng-deu-50k.tsv"),
              encoding="utf-8") as f:
        for line in f:
            parts = line.rstrip("\n").split("\t")
            if len(parts) >= 2:
                pairs.append((parts[0], parts[1]))
    for name in TRAIN_NEWS:
        pairs.extend(zip(*testset("deu-eng/" + name)))
    held = held_out_strings()
    kept, removed = [], 0
    for en, de in pairs:
        en, de = norm(en), norm(de)
        if not en or not de:
            continue
        if en in held or de in held:
            removed += 1
            continue
        kept.append((en, de))
    return kept, removed
