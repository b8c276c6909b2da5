"""WMT 2021-2024 general-domain test sources paired with their human
references and every submitted system's output (../shared/data/wmt-systems).

Training on the systems' outputs is sequence-level knowledge distillation
(Kim & Rush 2016): strong systems' translations are easier for a small
model to learn than human references. generaltest2023 is held out: its
lines are test data (held_out) and never training pairs.
"""
import gzip
import os
import re

import data

FOLDER = os.path.join(data.DATA, "wmt-systems")
TRAIN = ["newstest2021.de-en", "newstest2021.en-de", "generaltest2022.de-en",
         "generaltest2022.en-de", "wmttest2024.en-de"]
HELD_OUT = ["generaltest2023.de-en", "generaltest2023.en-de"]
# WMT24's deliberately weak baselines: ranked last by the human evaluation.
WEAK_SYSTEMS = ("CycleL.txt", "CycleL2.txt")
# Paragraphs longer than this (characters, either side) would mostly be
# cut by train.py's 100-piece limit: they are split into sentences.
LONG = 350
# A sentence end: . ! ? or … (not a digit's full stop, as in "3. Oktober"),
# perhaps a closing quote or bracket, space, then a capital, digit or opening
# quote.
_END = re.compile(r'(?:(?<=[.!?…])(?<![0-9]\.)|(?<=[.!?…]["”“»«)\']))\s+'
                  r'(?=["„“«»(\']?[A-ZÄÖÜ0-9])')


def sentences(text):
    return [s.strip() for s in _END.split(text) if s.strip()]


def split_long(en, de):
    """A long paragraph pair as sentence pairs where both sides have as
    many sentences and each pair's lengths are alike (a false boundary,
    as after "Dr." or "z. B.", shifts the pairs and breaks that), else as
    it is."""
    if len(en) <= LONG and len(de) <= LONG:
        return [(en, de)]
    pairs = list(zip(sentences(en), sentences(de)))
    if len(pairs) != len(sentences(en)) or len(pairs) != len(sentences(de)):
        return [(en, de)]
    alike = all(0.5 <= (len(a) + 10) / (len(b) + 10) <= 2 for a, b in pairs)
    return pairs if alike else [(en, de)]


def rows(name):
    """[(source, target, origin)] of one file, header and canary lines
    dropped."""
    path = os.path.join(FOLDER, name + ".tsv.gz")
    out = []
    with gzip.open(path, "rt", encoding="utf-8") as f:
        next(f)
        for line in f:
            parts = line.rstrip("\n").split("\t")
            if len(parts) != 3 or parts[0].startswith("CANARY"):
                continue
            out.append(tuple(parts))
    return out


def as_en_de(name, source, target):
    return (target, source) if name.endswith(".de-en") else (source, target)


def pairs():
    """[(en, de)] of every training file: references and systems'
    outputs, without the weak baselines, long paragraphs split."""
    out = []
    for name in TRAIN:
        for source, target, origin in rows(name):
            if origin.endswith(WEAK_SYSTEMS):
                continue
            out.extend(split_long(*as_en_de(name, source, target)))
    return out


def held_out():
    """Every line of the held-out files, both sides."""
    seen = set()
    for name in HELD_OUT:
        for source, target, _ in rows(name):
            for line in (source, target):  # and each of its sentences
                seen.add(data.norm(line))
                seen.update(data.norm(x) for x in sentences(line))
    return seen


def test_reference(direction="de-en", ref="refA"):
    """(source lines, reference lines) of generaltest2023 in `direction`,
    from its human reference `ref`."""
    src, tgt = [], []
    for source, target, origin in rows(f"generaltest2023.{direction}"):
        if origin.endswith(f".{ref}.{direction[-2:]}") or \
                origin.endswith(f"{direction}.{ref}.txt"):
            src.append(source)
            tgt.append(target)
    return src, tgt
