"""Checks a translation for the failures a user sees at once: empty output,
a loop, the wrong language. Used by tests/everyday_test.py and the model
card's everyday table."""
import re

# Frequent function words that belong to one language only ("an" and
# "was" are words of both).
GERMAN = set("der die das den dem des und ist nicht ich du er sie es wir ihr "
             "ein eine einen einem einer mit zu von für auf im ins zum zur "
             "bitte haben habe hat bin sind wie wo kann können mir mich "
             "dich uns euch heute morgen sehr gibt".split())
ENGLISH = set("the and is not you he she it we they a with to of for on "
              "please have has are how where what can me my your "
              "our today tomorrow very there this that".split())


def words(text):
    return re.findall(r"\w+", text.lower())


def loop(text):
    """A description of the loop in text, or None: a word 3+ times in a row,
    or one 2-4-word phrase 3+ times."""
    w = words(text)
    for i in range(len(w) - 2):
        if w[i] == w[i + 1] == w[i + 2]:
            return f"'{w[i]}' three times in a row"
    for n in (2, 3, 4):
        counts = {}
        for i in range(len(w) - n + 1):
            gram = tuple(w[i:i + n])
            counts[gram] = counts.get(gram, 0) + 1
            if counts[gram] >= 3:
                return f"'{' '.join(gram)}' three times"
    return None


def language(text):
    """'de', 'en' or None (no function word decides)."""
    w = words(text)
    de = sum(x in GERMAN for x in w)
    en = sum(x in ENGLISH for x in w)
    if de == en:
        return None
    return "de" if de > en else "en"


def problems(text, to):
    """What is wrong with text as a translation into `to` ([] if nothing)."""
    found = []
    if not text.strip():
        found.append("empty")
    described = loop(text)
    if described:
        found.append("loop: " + described)
    lang = language(text)
    if lang is not None and lang != to:
        found.append(f"reads as {lang}, not {to}")
    return found
