"""English-German pairs from the German message catalogues (.mo) of Debian
packages: msgid (English) -> msgstr (German).

Two sources, weighted apart: "stories" is the Wesnoth campaigns' dialogue
and narration (the most general text among catalogues), "catalogs" is
software: LibreOffice, Freeciv, GnuCash, digiKam, Inkscape. The packages
are fetched with `apt-get download` into models/work/packages and read in
place from their .deb files; nothing is installed. Entries under three
words, with placeholders or markup, or the same on both sides are dropped.
Licences (from the packages' copyright files): Wesnoth GPL-2+, LibreOffice
MPL-2.0, Freeciv GPL-2+, GnuCash GPL-2+, digiKam GPL-2+, Inkscape GPL-2+;
their translations are under the packages' licences.
"""
import glob
import gettext
import io
import os
import re
import subprocess
import tarfile

CACHE = os.path.normpath(os.path.join(os.path.dirname(__file__), "..",
                                      "work", "packages"))
WESNOTH = ["wesnoth-1.16-" + c for c in (
    "data", "did", "dm", "dw", "ei", "httt", "l", "low", "nr", "sof", "sota",
    "sotbe", "thot", "trow", "tsg", "ttb", "utbs")]
SOFTWARE = ["libreoffice-l10n-de", "freeciv-data", "gnucash-common",
            "digikam-data", "inkscape"]
# printf and Python formats, {name}, $var, <markup>, &entity;, @word@.
PLACEHOLDER = re.compile(
    r"%[-+ #0-9.]*[a-zA-Z%]|%\(\w+\)|\{[^}]*\}|\$\w|<[^>]*>|&\w+;|@\w+@"
    r"|\\[nt]|\[\w")
MNEMONIC = re.compile(r"[~_&](?=\w)")


def debs(packages):
    """Paths of the packages' .deb files, downloading those missing."""
    os.makedirs(CACHE, exist_ok=True)
    missing = [p for p in packages
               if not glob.glob(os.path.join(CACHE, p + "_*.deb"))]
    if missing:
        subprocess.run(["apt-get", "download", "-q", *missing], cwd=CACHE,
                       check=True, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
    return [sorted(glob.glob(os.path.join(CACHE, p + "_*.deb")))[-1]
            for p in packages]


def files(deb, wanted):
    """(name, bytes) of each file of a .deb's data (data.tar.*) whose
    TarInfo `wanted` accepts, read without installing the package."""
    listing = subprocess.run(["dpkg-deb", "--fsys-tarfile", deb], check=True,
                             capture_output=True).stdout
    with tarfile.open(fileobj=io.BytesIO(listing)) as tar:
        for member in tar:
            if wanted(member):
                yield member.name, tar.extractfile(member).read()


def _german_catalogues(deb):
    """Bytes of each German .mo file inside a .deb."""
    for _, mo in files(deb, lambda member: member.name.endswith(".mo") and
                       "/de/LC_MESSAGES/" in member.name):
        yield mo


def _clean(text):
    text = MNEMONIC.sub("", text.replace("\u200b", ""))
    return " ".join(text.split())


def _entries(mo):
    """[(en, de)] of one catalogue: the singular of plural entries, the
    message context dropped."""
    catalog = gettext.GNUTranslations(io.BytesIO(mo))._catalog
    out = []
    for key, value in catalog.items():
        if isinstance(key, tuple):  # plural: (msgid, index)
            if key[1] != 0:
                continue
            key = key[0]
        if not key or not value:
            continue
        key = key.split("\x04", 1)[-1].split("\x00", 1)[0]
        out.append((key, value.split("\x00", 1)[0]))
    return out


def keep(en, de):
    """Whether a catalogue entry is a sentence-like translation pair."""
    if len(en.split()) < 3 or en == de:
        return False
    return not (PLACEHOLDER.search(en) or PLACEHOLDER.search(de))


def pairs(packages):
    """[(en, de)] from the packages' German catalogues."""
    out = []
    for deb in debs(packages):
        for mo in _german_catalogues(deb):
            for en, de in _entries(mo):
                # Placeholders and entities before the mnemonics go ("&amp;").
                if keep(en, de):
                    out.append((_clean(en), _clean(de)))
    return out


def stories():
    return pairs(WESNOTH)


def software():
    return pairs(SOFTWARE)
