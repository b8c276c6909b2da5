"""English-German pairs from LibreOffice's help, whose German and English
pages have the same paths and give each paragraph, heading and table cell
the same `id`: the pair is the text of one id on both sides.

The packages (libreoffice-help-de, libreoffice-help-en-us; MPL-2.0, from
their copyright files) are fetched with `apt-get download` into
models/work/packages and read in place from their .deb files. Elements
under three words, the same on both sides, or left untranslated (German
text that reads as the English one) are dropped.
"""
import html.parser

import catalogs

PACKAGES = {"de": "libreoffice-help-de", "en": "libreoffice-help-en-us"}
ROOTS = {"de": "/help/de/text/", "en": "/help/en-US/text/"}
BLOCKS = {"p", "h1", "h2", "h3", "h4", "h5", "h6", "td", "li"}


class _Blocks(html.parser.HTMLParser):
    """Collects the flattened text of each block element that has an id."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.found = {}
        self.open = []  # [(tag, id, [text pieces])], innermost last

    def handle_starttag(self, tag, attrs):
        if tag in BLOCKS:
            self.open.append((tag, dict(attrs).get("id"), []))
        elif tag == "br" and self.open:
            self.open[-1][2].append(" ")

    def handle_endtag(self, tag):
        if self.open and self.open[-1][0] == tag:
            _, ident, text = self.open.pop()
            if ident:
                self.found[ident] = " ".join("".join(text).split())

    def handle_data(self, data):
        if self.open:
            self.open[-1][2].append(data)


def _pages(deb, root):
    """relative path -> {id: text} for every help page in a .deb."""
    pages = {}
    for name, page in catalogs.files(
            deb, lambda m: root in m.name and m.name.endswith(".html")):
        parser = _Blocks()
        parser.feed(page.decode("utf-8"))
        pages[name[name.find(root) + len(root):]] = parser.found
    return pages


def pairs():
    """[(en, de)]: each id's English and German text."""
    de_deb, en_deb = catalogs.debs([PACKAGES["de"], PACKAGES["en"]])
    german, english = _pages(de_deb, ROOTS["de"]), _pages(en_deb, ROOTS["en"])
    out = []
    for path, blocks in english.items():
        other = german.get(path, {})
        for ident, en in blocks.items():
            de = other.get(ident)
            if de and len(en.split()) >= 3 and en != de:
                out.append((en, de))
    return out
