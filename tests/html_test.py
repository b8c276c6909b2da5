"""HTML mode (--html 1) of the shipped int8 model, read back with Python's
own HTML parser: every output is well-formed where its input is, holds no
start tag the input did not (byte for byte: no new tag, attribute or URL)
and no more end tags or comments of a kind than the input; and inline tags
land on the words a person placed them on (tests/html/*.jsonl, 65 segments
per direction, beam 4; "a|b": either translation of the wrapped words).

  python3 -m unittest tests/html_test.py   (HEED_BIN: the heed CLI)
  python3 tests/html_test.py               prints the placement accuracy
"""
import collections
import html.parser
import json
import os
import string
import subprocess
import unittest

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
HEED = os.environ.get("HEED_BIN", os.path.join(ROOT, "build", "release",
                                               "heed"))
MODEL = os.path.join(ROOT, "models", "heed-en-de-int8.heed")
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link",
        "meta", "param", "source", "track", "wbr"}
# The floor under the accuracy measured when the set was written (docs/html.md)
FLOOR = 0.9


def translate(lines, to):
    out = subprocess.run([HEED, "translate", "--model", MODEL, "--to", to,
                          "--beam", "4", "--html", "1"],
                         input="\n".join(lines) + "\n", capture_output=True,
                         text=True, check=True)
    return out.stdout.split("\n")[:len(lines)]


class Reader(html.parser.HTMLParser):
    """Start tags verbatim, end tags and comments counted, nesting checked,
    and the text inside each element, in the order elements open."""

    def __init__(self, text):
        super().__init__(convert_charrefs=True)
        self.starts = collections.Counter()
        self.ends = collections.Counter()
        self.comments = 0
        self.well_formed = True
        self.stack = []      # open elements: (name, index in self.elements)
        self.elements = []   # (start tag verbatim, its text)
        self.feed(text)
        self.close()
        self.well_formed &= not self.stack

    def handle_starttag(self, tag, attrs):
        raw = self.get_starttag_text()
        self.starts[raw] += 1
        if tag not in VOID and not raw.endswith("/>"):
            self.stack.append((tag, len(self.elements)))
            self.elements.append([raw, ""])

    def handle_startendtag(self, tag, attrs):
        self.starts[self.get_starttag_text()] += 1

    def handle_endtag(self, tag):
        self.ends[tag] += 1
        if self.stack and self.stack[-1][0] == tag:
            self.stack.pop()
        else:
            self.well_formed = False

    def handle_comment(self, data):
        self.comments += 1

    def handle_data(self, data):
        for _, e in self.stack:
            self.elements[e][1] += data


def words(text):
    return " ".join(w.strip(string.punctuation + "„“”«»") for w in
                    text.split()).strip().lower()


def placements(source, output, wrapped):
    """Per element of the source, whether the output's element of the same
    start tag (and occurrence) wraps the words expected."""
    got = collections.defaultdict(list)
    for raw, text in Reader(output).elements:
        got[raw].append(text)
    seen = collections.Counter()
    result = []
    for (raw, _), want in zip(Reader(source).elements, wrapped):
        k = seen[raw]
        seen[raw] += 1
        text = got[raw][k] if k < len(got[raw]) else None
        result.append(text is not None and
                      any(words(text) == words(w) for w in want.split("|")))
    return result


def load(name):
    with open(os.path.join(ROOT, "tests", "html", name),
              encoding="utf-8") as f:
        return [json.loads(line) for line in f]


def accuracy(name, to):
    rows = load(name)
    outputs = translate([r["source"] for r in rows], to)
    marks, misses = [], []
    for r, out in zip(rows, outputs):
        p = placements(r["source"], out, r["wrapped"])
        marks += p
        if not all(p):
            misses.append(out)
    return sum(marks) / len(marks), len(marks), rows, outputs, misses


HOSTILE = [
    'Click <a href="/x" title="a > b">here</a> now.',
    "<b>bold <i>both</b> italic</i> text",
    "</b></i></p>stray end tags",
    "<b>" * 300 + "deep" + "</b>" * 300,
    "<b>" * 2000 + "never closed",
    "<a href='javascript:alert(1)'>click</a> me",
    "<script>document.write('<b>x</b>')</script>A dog.",
    "<style>p { color: red }</style><p>A red <span>cat</span>.</p>",
    "<p translate=\"no\">Keep this</p><p>Translate this dog.</p>",
    "A <span class=\"notranslate\">heed</span> test.",
    "<!-- a comment --> A dog <!-- another --> runs.",
    "Tom &amp; Jerry &lt;3 &foo; &#x1F600; &#0; &#xD800; &",
    "<img src=x onerror=alert(1)> A <b>dog</b>.",
    "a < b and c > d, <notatag",
    "<a href=\"x\"><img src=\"y.png\"></a> A photo of a <b>cat</b>.",
    "<div><p>One <b>dog</b>.</p><p>Two <i>cats</i>.</p></div>",
    "<ul><li>Bread<li>Milk</ul>",
    "<table><tr><td>The <b>man</b></td><td>The woman</td></tr></table>",
    "<p>Unclosed <a href=\"/y\">link",
    "<b>&lt;script&gt;alert(1)&lt;/script&gt;</b>",
    "<<b>>dog<</b>>",
    "<b title=\"unterminated>dog</b>",
    "<svg><text>A dog</text></svg> A cat.",
    "<textarea><b>not markup</b></textarea> The house.",
    "<p>A <em>very</em> <strong><em>small</em> dog</strong>.</p>",
    "<span class=notranslate><!-- </span> --></span> Hello dog.",
    "<p>Hello <script/>x</script> world</p>",
    "<p>A big dog <style>p { color: red }",
]


class Html(unittest.TestCase):

    def check_safe(self, source, output):
        src, out = Reader(source), Reader(output)
        for raw, n in out.starts.items():
            self.assertLessEqual(n, src.starts[raw], (source, output, raw))
        for tag, n in out.ends.items():
            self.assertLessEqual(n, src.ends[tag], (source, output, tag))
        self.assertLessEqual(out.comments, src.comments, (source, output))
        if src.well_formed:
            self.assertTrue(out.well_formed, (source, output))

    def test_hostile_markup(self):
        for to in ("de", "en"):
            for source, output in zip(HOSTILE, translate(HOSTILE, to)):
                self.check_safe(source, output)
        # What is left untranslated is there, byte for byte.
        out = translate(HOSTILE, "de")
        self.assertIn("<script>document.write('<b>x</b>')</script>", out[6])
        self.assertIn('<p translate="no">Keep this</p>', out[8])
        self.assertIn('<span class="notranslate">heed</span>', out[9])
        self.assertIn("<textarea><b>not markup</b></textarea>", out[23])
        self.assertNotIn("<script>alert", out[19])

    def test_placement(self):
        for name, to in (("en-de.jsonl", "de"), ("de-en.jsonl", "en")):
            acc, n, rows, outputs, misses = accuracy(name, to)
            self.assertGreaterEqual(len(rows), 60)
            for r, out in zip(rows, outputs):
                self.check_safe(r["source"], out)
            self.assertGreaterEqual(acc, FLOOR, (name, n, misses))

    def test_scoring_can_fail(self):
        src = "The <b>dog</b> runs."
        self.assertEqual(placements(src, "Der <b>Hund</b> läuft.",
                                    ["Hund"]), [True])
        self.assertEqual(placements(src, "Der <b>Hund läuft</b>.",
                                    ["Hund"]), [False])
        self.assertEqual(placements(src, "Der Hund läuft.", ["Hund"]),
                         [False])
        self.assertFalse(Reader("<b><i>x</b></i>").well_formed)


if __name__ == "__main__":
    for name, to in (("en-de.jsonl", "de"), ("de-en.jsonl", "en")):
        acc, n, _, _, misses = accuracy(name, to)
        print(f"{name}: {acc:.1%} of {n} inline elements placed as expected")
        for m in misses:
            print("   ", m)
