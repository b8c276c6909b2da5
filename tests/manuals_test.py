"""The manuals' block pairing (models/recipe/manuals.py) on small pages:
which blocks a page yields, which pages and pairs are kept, and which
paths name the same page in both languages."""
import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "models",
                                "recipe"))
import manuals  # noqa: E402


def blocks(page):
    parser = manuals._Blocks()
    parser.feed(page)
    return parser.found


class BlocksTest(unittest.TestCase):
    def test_blocks_in_document_order_nested_text_once(self):
        page = ("<h2>1.2. The <a href='x'>Layers</a> dialog</h2>"
                "<ul><li><p>Click the eye icon.</p></li></ul>"
                "<table><tr><td>Shift + H</td><td>hide it</td></tr></table>")
        self.assertEqual(blocks(page), [
            "1.2. The Layers dialog", "Click the eye icon.", "", "Shift + H",
            "hide it"])

    def test_navigation_and_listings_are_skipped(self):
        page = ("<div class='navheader'><table><tr><td>Prev</td>"
                "<td><div>Next</div></td></tr></table></div>"
                "<p>Run this:</p><pre>apt <b>install</b> gimp</pre>"
                "<p>Line one<br/>line two</p>"
                "<div class='navfooter'><p>Home</p></div>")
        self.assertEqual(blocks(page), ["Run this:", "Line one line two"])

    def test_sphinx_permalink_sign_is_dropped(self):
        self.assertEqual(blocks("<h2>7.2. Quality Assurance¶</h2>"),
                         ["7.2. Quality Assurance"])


class PairedTest(unittest.TestCase):
    def test_pages_with_as_many_blocks_are_paired_in_order(self):
        english = {"a": ["Open the image first.", "Then crop it now."],
                   "b": ["Only one block here."],
                   "c": ["Missing in German here."]}
        german = {"a": ["Öffnen Sie zuerst das Bild.",
                        "Dann schneiden Sie es zu."],
                  "b": ["Ein Block.", "Und noch einer hier."]}
        self.assertEqual(manuals.paired(english, german), [
            ("Open the image first.", "Öffnen Sie zuerst das Bild."),
            ("Then crop it now.", "Dann schneiden Sie es zu.")])

    def test_short_identical_and_untranslated_blocks_are_dropped(self):
        english = {"a": ["Save", "GNU Image Manipulation Program",
                         "Figure 8.21. Example for the layer mode",
                         "The layer is hidden."]}
        german = {"a": ["Speichern", "GNU Image Manipulation Program",
                        "Abbildung 8.21. Example for the layer mode",
                        "Die Ebene ist verborgen."]}
        self.assertEqual(manuals.paired(english, german), [
            ("The layer is hidden.", "Die Ebene ist verborgen.")])

    def test_untranslated_needs_several_english_words(self):
        self.assertFalse(manuals.untranslated("Die Datei the.conf öffnen."))
        self.assertTrue(manuals.untranslated(
            "Setting the balance between shadows and highlights"))


class PatternTest(unittest.TestCase):
    def page(self, name, lang, path):
        found = manuals._pattern(manuals.MANUALS[name][2], lang).search(path)
        return found and found["page"]

    def test_each_language_finds_its_own_pages(self):
        cases = [
            ("gimp", "/usr/share/gimp/2.0/help/{}/gimp-tool-crop.html"),
            ("debian-reference", "/usr/share/debian-reference/ch01.{}.html"),
            ("maint-guide", "/usr/share/doc/maint-guide/html/build.{}.html"),
            ("installation-guide",
             "/usr/share/doc/installation-guide-amd64/{}/ch02s01.html"),
        ]
        for name, template in cases:
            with self.subTest(name):
                path = "." + template
                self.assertTrue(self.page(name, "en", path.format("en")))
                self.assertEqual(self.page(name, "en", path.format("en")),
                                 self.page(name, "de", path.format("de")))
                self.assertIsNone(self.page(name, "en", path.format("de")))

    def test_translations_in_subfolders(self):
        self.assertEqual(self.page(
            "developers-reference", "de",
            "./usr/share/developers-reference/de/beyond-pkging.html"),
            "beyond-pkging")
        self.assertEqual(self.page(
            "developers-reference", "en",
            "./usr/share/developers-reference/beyond-pkging.html"),
            "beyond-pkging")
        self.assertIsNone(self.page(
            "developers-reference", "en",
            "./usr/share/developers-reference/de/beyond-pkging.html"))
        self.assertEqual(self.page(
            "debian-faq", "de",
            "./usr/share/doc/debian/FAQ/de/choosing.de.html"), "choosing")


if __name__ == "__main__":
    unittest.main()
