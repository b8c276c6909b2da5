"""English-German pairs from the Ding dictionary (Debian's trans-de-en,
/usr/share/trans/de-en; GPL-2+, Frank Richter, TU Chemnitz).

A line is `German :: English`; both sides hold the same number of
`|`-separated sub-entries (headword, inflections, phrases, example
sentences), each a `;`-separated list of alternatives. Annotations in
`{}`, `[]` and `()` are dropped, and so is every entry with a placeholder
(jd., etw., sb., sth.) or an open alternative (`/`, `…`).
"""
import re
import zlib

DING = "/usr/share/trans/de-en"
PLACEHOLDER = re.compile(
    r"\b(jd|jdm|jdn|jds|etw|sb|sth|sb's|so|o\.s|oneself)\b\.|[/…<>=+]|\.\.\.")
ANNOTATION = re.compile(r"\{[^}]*\}|\[[^\]]*\]|\([^)]*\)")


def _clean(s):
    s = ANNOTATION.sub("", s).replace("’", "'")
    s = re.sub(r" ([.,!?;:])", r"\1", " ".join(s.split()))
    return s.strip(" ;,")


def kind(en, de):
    """'sentence', 'phrase' or 'word'."""
    if en[-1:] in ".!?" and de[-1:] in ".!?" and len(en.split()) >= 3:
        return "sentence"
    if len(de.split()) >= 2 and len(en.split()) >= 2 and \
            not (en.startswith("to ") and len(en.split()) == 2):
        return "phrase"
    return "word"


def pairs(path=DING):
    """[(en, de, kind)], one pair per aligned sub-entry: its first
    alternative on each side (the others are synonyms, not translations of
    one another)."""
    out = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.startswith("#") or " :: " not in line:
                continue
            de_side, en_side = line.rstrip("\n").split(" :: ", 1)
            de_parts, en_parts = de_side.split(" | "), en_side.split(" | ")
            if len(de_parts) != len(en_parts):
                continue
            for de, en in zip(de_parts, en_parts):
                de, en = de.split("; ")[0], en.split("; ")[0]
                if PLACEHOLDER.search(de) or PLACEHOLDER.search(en):
                    continue
                de, en = _clean(de), _clean(en)
                if not de or not en or de == en:
                    continue
                if not (0.33 <= len(en) / len(de) <= 3.0):
                    continue
                out.append((en, de, kind(en, de)))
    return out


def is_dev(en):
    """A fixed 2% of the sentences are held out as a dev slice."""
    return zlib.crc32(en.encode()) % 50 == 0
