"""English-German pairs from manuals that Debian ships in both languages as
HTML built from one source (DocBook or Sphinx): the GIMP user manual, the
Debian Reference, the Debian FAQ, the Developer's Reference, the New
Maintainers' Guide and the Installation Guide.

A German page and its English page are made from the same document, so
their block elements (paragraphs, headings, list items, table cells) come
in the same order; a page is used only where both sides have as many
blocks, and its blocks are paired in order. Navigation bars and program
listings are skipped. Blocks under three words, the same on both sides or
left in English are dropped. The packages are fetched with `apt-get
download` into models/work/packages and read in place from their .deb
files.

Licences (from the packages' copyright files): gimp-help GFDL-1.2+ (no
invariant sections), debian-reference GPL-2+, developers-reference GPL-2,
maint-guide GPL-2+, installation-guide GPL-2, debian-faq its own
permissive notice (verbatim and modified copies allowed).
"""
import html.parser
import re

import catalogs

# name -> (English package, German package, path pattern per language with
# `{lang}` in it; group "page" names the same page on both sides).
MANUALS = {
    "gimp": ("gimp-help-en", "gimp-help-de",
             r"/usr/share/gimp/2\.0/help/{lang}/(?P<page>[^/]+)\.html$"),
    "debian-reference": ("debian-reference-en", "debian-reference-de",
                         r"/usr/share/debian-reference/(?P<page>[^/]+)"
                         r"\.{lang}\.html$"),
    "debian-faq": ("debian-faq", "debian-faq-de",
                   r"/usr/share/doc/debian/FAQ/(?:de/)?(?P<page>[^/]+)"
                   r"\.{lang}\.html$"),
    "developers-reference": ("developers-reference",
                             "developers-reference-de",
                             r"/usr/share/developers-reference/{dir}"
                             r"(?P<page>[^/]+)\.html$"),
    "maint-guide": ("maint-guide", "maint-guide-de",
                    r"/usr/share/doc/maint-guide(?:-de)?/html/(?P<page>[^/]+)"
                    r"\.{lang}\.html$"),
    "installation-guide": ("installation-guide-amd64",
                           "installation-guide-amd64",
                           r"/usr/share/doc/installation-guide-amd64/{lang}/"
                           r"(?P<page>[^/]+)\.html$"),
}
BLOCKS = {"p", "h1", "h2", "h3", "h4", "h5", "h6", "li", "dt", "td", "th"}
SKIPPED = {"pre", "script", "style"}
NAVIGATION = {"navheader", "navfooter"}
# English words that German text does not use: a German block with several
# of them is an English passage the translators left as it was.
ENGLISH = set("the and of is are with for to by this that you your from will "
              "be can which when used into".split())


class _Blocks(html.parser.HTMLParser):
    """The flattened text of each block element in document order; text
    goes to the innermost open block only, so a list item holding a
    paragraph yields the paragraph once."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.found = []
        self.open = []  # [(tag, [text pieces])], innermost last
        self.skipping = []  # open tags whose content is not prose

    def handle_starttag(self, tag, attrs):
        if tag in SKIPPED or (tag == "div" and self.skipping) or (
                tag == "div" and dict(attrs).get("class") in NAVIGATION):
            self.skipping.append(tag)
        elif tag in BLOCKS:
            self.open.append((tag, []))
        elif tag == "br" and self.open:
            self.open[-1][1].append(" ")

    def handle_endtag(self, tag):
        if self.skipping:
            if self.skipping[-1] == tag:
                self.skipping.pop()
            return
        if self.open and self.open[-1][0] == tag:
            _, text = self.open.pop()
            # "¶": the permalink sign after a Sphinx heading.
            text = "".join(text).replace("¶", "")
            self.found.append(" ".join(text.split()))

    def handle_data(self, data):
        if self.open and not self.skipping:
            self.open[-1][1].append(data)


def _pattern(template, lang):
    return re.compile(template.format(
        lang=lang, dir="" if lang == "en" else lang + "/"))


def _pages(deb, pattern):
    """page name -> [block text] for every page of a .deb that matches."""
    pages = {}
    for name, page in catalogs.files(
            deb, lambda m: m.isfile() and pattern.search(m.name)):
        parser = _Blocks()
        parser.feed(page.decode("utf-8"))
        pages[pattern.search(name)["page"]] = parser.found
    return pages


def untranslated(de):
    """Whether a German block reads as English."""
    words = re.findall(r"\w+", de.lower())
    english = sum(word in ENGLISH for word in words)
    return english >= 2 and english >= 0.15 * len(words)


def paired(english, german):
    """[(en, de)] of pages that have as many blocks on both sides."""
    out = []
    for page, blocks in sorted(english.items()):
        other = german.get(page)
        if other is None or len(other) != len(blocks):
            continue
        out.extend((en, de) for en, de in zip(blocks, other)
                   if len(en.split()) >= 3 and en != de
                   and not untranslated(de))
    return out


def manual(name):
    """[(en, de)] of one manual of MANUALS."""
    en_package, de_package, template = MANUALS[name]
    en_deb, de_deb = catalogs.debs([en_package, de_package])
    return paired(_pages(en_deb, _pattern(template, "en")),
                  _pages(de_deb, _pattern(template, "de")))


def pairs():
    """[(en, de)] of every manual."""
    return [pair for name in MANUALS for pair in manual(name)]
