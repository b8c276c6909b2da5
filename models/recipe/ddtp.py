"""Debian's translated package descriptions (DDTP) as English-German pairs.

`apt-get update -o Acquire::Languages=de,en` fetches Translation-de and
Translation-en (lz4) under /var/lib/apt/lists; entries pair by
Description-md5. Each pair gives its short description and, where both
long descriptions have as many paragraphs (split on lines that are just
" ."), each paragraph. Paragraphs that are lists (lines starting with a
bullet) are left out: their line breaks carry structure the text lacks.
A plain `apt-get update` deletes the German file again, so pairs() fetches
it when it is missing. Licence: the descriptions are part of their
packages; the translations are the DDTP's (ddtp.debian.org), under the
packages' licences.
"""
import glob
import re
import subprocess

LISTS = "/var/lib/apt/lists"
BULLET = re.compile(r"^\s*([*+o-]|\d+[.)])\s")


def _files(lang):
    return sorted(glob.glob(f"{LISTS}/*_main_i18n_Translation-{lang}.lz4"))


def fetch():
    """Asks apt for the German and English descriptions when absent."""
    if _files("de") and _files("en"):
        return
    subprocess.run(["apt-get", "update", "-q", "-o",
                    "Acquire::Languages=de,en"], check=True,
                   stdout=subprocess.DEVNULL)


def entries(lang):
    """Description-md5 -> (short line, [long lines])."""
    out = {}
    for path in _files(lang):
        text = subprocess.run(["lz4cat", path], check=True,
                              capture_output=True).stdout.decode("utf-8",
                                                                 "replace")
        for block in text.split("\n\n"):
            md5, desc, long = None, None, []
            for line in block.split("\n"):
                if line.startswith("Description-md5: "):
                    md5 = line.split(": ", 1)[1]
                elif line.startswith(f"Description-{lang}: "):
                    desc = line.split(": ", 1)[1]
                elif desc is not None and line.startswith(" "):
                    long.append(line[1:])
            if md5 and desc:
                out[md5] = (desc, long)
    return out


def paragraphs(lines):
    """Long-description lines -> paragraphs (None for a list paragraph)."""
    paras, current = [], []
    for line in lines + ["."]:
        if line.strip() == ".":
            if current:
                listy = any(BULLET.match(x) for x in current)
                paras.append(None if listy else " ".join(
                    x.strip() for x in current))
            current = []
        else:
            current.append(line)
    return paras


def pairs():
    """[(en, de)]: short descriptions and paragraph-aligned long ones."""
    fetch()
    en, de = entries("en"), entries("de")
    out = []
    for md5, (de_short, de_long) in de.items():
        if md5 not in en:
            continue
        en_short, en_long = en[md5]
        out.append((en_short, de_short))
        en_p, de_p = paragraphs(en_long), paragraphs(de_long)
        if len(en_p) != len(de_p):
            continue
        out.extend((a, b) for a, b in zip(en_p, de_p) if a and b)
    return out
