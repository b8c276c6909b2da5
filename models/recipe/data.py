"""Training and held-out data from ../shared/data (see its README).

Held out, never trained on: Multi30k val and every test split, every
Tatoeba test version, newstest2014 and newstest2018-2020, WMT's
generaltest2023 (wmt.py), the everyday set (models/eval/everyday.*) and
the Ding dev slice. Every training
pair whose source or target occurs in a held-out set (after whitespace
normalisation) is removed.
"""
import gzip
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

DATA = os.path.normpath(os.path.join(os.path.dirname(__file__), "..", "..",
                                     "..", "shared", "data"))
M30K = os.path.join(DATA, "multi30k")
TESTS = os.path.join(DATA, "testsets")

TRAIN_NEWS = ["news-test2008", "newssyscomb2009", "newstest2009",
              "newstest2010", "newstest2011", "newstest2012", "newstest2013",
              "newstest2015", "newstest2016", "newstest2017"]
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
    for side in everyday():
        seen.update(norm(s) for s in side)
    import wmt
    seen.update(wmt.held_out())
    seen.discard("")
    return seen


def everyday():
    """(en lines, de lines): models/eval/everyday.{en,de}, written for heed
    (everyday sentences with our own reference translations)."""
    base = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                        "eval", "everyday")
    return _lines(base + ".en"), _lines(base + ".de")


def anki():
    pairs = []
    with open(os.path.join(DATA, "tatoeba", "anki-eng-deu-50k.tsv"),
              encoding="utf-8") as f:
        for line in f:
            parts = line.rstrip("\n").split("\t")
            if len(parts) >= 2:
                pairs.append((parts[0], parts[1]))
    return pairs


def ding_pairs(words):
    """The Ding dictionary's example sentences and phrases (all but the dev
    slice) and its first `words` single-word entries in a fixed random
    order: a lexicon teaches vocabulary, too much of it makes the model
    terse."""
    import ding
    rng = random.Random(7)
    found = ding.pairs()
    text = [(en, de) for en, de, k in found
            if k != "word" and not ding.is_dev(en)]
    single = [(en, de) for en, de, k in found if k == "word"]
    rng.shuffle(single)
    return text + single[:words]


def ding_dev(limit=1000):
    """(en lines, de lines): the held-out slice of Ding's sentences."""
    import ding
    dev = [(en, de) for en, de, k in ding.pairs()
           if k == "sentence" and ding.is_dev(en)][:limit]
    return [en for en, _ in dev], [de for _, de in dev]


def training_sources(ding_words=30000, repeats=None):
    """name -> (pairs, times each pair is repeated per epoch); `repeats`
    overrides the times of the sources it names."""
    news = []
    for name in TRAIN_NEWS:
        news.extend(zip(*testset("deu-eng/" + name)))
    sources = {"multi30k": (list(zip(*multi30k("train"))), 2),
               "anki": (anki(), 2), "news": (news, 1)}
    if os.path.exists("/usr/share/trans/de-en"):
        sources["ding"] = (ding_pairs(ding_words), 1)
    import catalogs
    import ddtp
    import helpdocs
    import manuals
    import wmt
    sources["wmt"] = (wmt.pairs(), 1)
    sources["ddtp"] = (ddtp.pairs(), 1)
    sources["stories"] = (catalogs.stories(), 1)
    sources["catalogs"] = (catalogs.software(), 1)
    sources["helpdocs"] = (helpdocs.pairs(), 1)
    sources["manuals"] = (manuals.pairs(), 1)
    for name, times in (repeats or {}).items():
        if name not in sources:
            raise ValueError(f"unknown source {name!r}: {sorted(sources)}")
        sources[name] = (sources[name][0], times)
    return sources


def training_pairs(ding_words=30000, repeats=None):
    """[(en, de)] from every source, repeated by its weight, without any
    pair that touches a held-out set or the Ding dev slice, deduplicated
    within each source, with a length-ratio filter. Returns the pairs and
    per-source counts (raw, kept)."""
    held = held_out_strings()
    for side in ding_dev() if os.path.exists("/usr/share/trans/de-en") \
            else ():
        held.update(norm(s) for s in side)
    kept, counts = [], {}
    for name, (pairs, repeat) in training_sources(ding_words, repeats).items():
        seen, mine = set(), []
        for en, de in pairs:
            en, de = norm(en), norm(de)
            if not en or not de or (en, de) in seen:
                continue
            if en in held or de in held:
                continue
            if not (1 / 3 <= (len(en) + 5) / (len(de) + 5) <= 3):
                continue
            seen.add((en, de))
            mine.append((en, de))
        counts[name] = {"raw": len(pairs), "kept": len(mine),
                        "repeat": repeat}
        kept.extend(mine * repeat)
    return kept, counts
