// HTML mode without a model: the fragment cut into blocks, text and markup
// (markup.h), and markup put back on given word alignments (place.h).
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "core/html/align.h"
#include "core/html/markup.h"
#include "core/html/place.h"

namespace heed {
namespace {

std::vector<HtmlBlock> Blocks(const std::string& html) {
  std::vector<HtmlBlock> out;
  for (const HtmlPart& p : ParseHtml(html)) {
    if (p.is_block) out.push_back(p.block);
  }
  return out;
}

// Every part's input again: blocks as they came, markup as it is.
std::string Rejoin(const std::vector<HtmlPart>& parts) {
  std::string out;
  for (const HtmlPart& p : parts) out += p.is_block ? p.block.raw : p.markup;
  return out;
}

TEST_CASE("blocks bound the text; inline elements are ranges of it") {
  const std::string html =
      "<p>The <b>dog</b> runs.</p><ul><li>One<li>Two <a href=\"/x\">"
      "<i>here</i></a></ul>";
  const std::vector<HtmlPart> parts = ParseHtml(html);
  CHECK(Rejoin(parts) == html);
  const std::vector<HtmlBlock> b = Blocks(html);
  REQUIRE(b.size() == 3);
  CHECK(b[0].text == "The dog runs.");
  REQUIRE(b[0].elements.size() == 1);
  CHECK(b[0].elements[0].open == "<b>");
  CHECK(b[0].elements[0].close == "</b>");
  CHECK(b[0].text.substr(b[0].elements[0].begin, 3) == "dog");
  CHECK(b[1].text == "One");
  CHECK(b[2].text == "Two here");
  REQUIRE(b[2].elements.size() == 2);
  CHECK(b[2].elements[0].open == "<a href=\"/x\">");
  CHECK(b[2].elements[1].parent == 0);
}

TEST_CASE("entities are decoded; one heed does not know stays as markup") {
  const std::vector<HtmlBlock> b =
      Blocks("Tom &amp; Jerry &lt;3 &eacute;t&#233; &#x1F600; &foo; &#0; &");
  REQUIRE(b.size() == 1);
  CHECK(b[0].text == "Tom & Jerry <3 \xC3\xA9t\xC3\xA9 \xF0\x9F\x98\x80   &");
  REQUIRE(b[0].atoms.size() == 2);
  CHECK(b[0].atoms[0].markup == "&foo;");
  CHECK(b[0].atoms[1].markup == "&#0;");
}

TEST_CASE("script, style, translate=no and notranslate are kept whole") {
  const std::string html =
      "A <script>x('<b>')</script>dog <code translate=\"no\">ls "
      "<b>-l</b></code> and <span class=\"x notranslate\">heed</span>.";
  const std::vector<HtmlBlock> b = Blocks(html);
  REQUIRE(b.size() == 1);
  CHECK(b[0].text == "A dog  and .");
  REQUIRE(b[0].atoms.size() == 3);
  CHECK(b[0].atoms[0].markup == "<script>x('<b>')</script>");
  CHECK(b[0].atoms[1].markup == "<code translate=\"no\">ls <b>-l</b></code>");
  CHECK(b[0].atoms[2].markup == "<span class=\"x notranslate\">heed</span>");
  CHECK(b[0].elements.empty());
}

TEST_CASE("an end tag inside a comment or script ends nothing") {
  std::vector<HtmlBlock> b =
      Blocks("<span class=notranslate><!-- </span> --></span> Hello");
  REQUIRE(b.size() == 1);
  CHECK(b[0].text == " Hello");
  REQUIRE(b[0].atoms.size() == 1);
  CHECK(b[0].atoms[0].markup ==
        "<span class=notranslate><!-- </span> --></span>");
  b = Blocks(
      "Hi <span translate=no><script>x(\"</span>\")</script></span> "
      "there");
  REQUIRE(b.size() == 1);
  CHECK(b[0].text == "Hi  there");
  // "/>" does not close a script: its text is script, not words.
  b = Blocks("<p>Hello <script/>x</script> world</p>");
  REQUIRE(b.size() == 1);
  CHECK(b[0].text == "Hello  world");
  CHECK(b[0].atoms.at(0).markup == "<script/>x</script>");
  // Markup that runs to the end of the input stays at the block's end.
  b = Blocks("<p>A B <style>x");
  REQUIRE(b.size() == 1);
  CHECK(b[0].atoms.at(0).place == HtmlAtom::Place::kEnd);
}

TEST_CASE("an element around no words is kept whole where it stood") {
  const std::vector<HtmlBlock> b =
      Blocks("A <a href=\"x\"><img src=\"y\"> </a>photo.");
  REQUIRE(b.size() == 1);
  CHECK(b[0].elements.empty());
  REQUIRE(b[0].atoms.size() == 1);
  CHECK(b[0].atoms[0].markup == "<a href=\"x\"><img src=\"y\"> </a>");
}

TEST_CASE("malformed markup is read, never lost") {
  for (const std::string html :
       {"<b title=\"unterminated>dog</b>", "a < b > c", "<<b>>x<</b>>",
        "</i>stray<b>x</i>y</b>", "<b><i>x</b></i>", "<!-- open comment",
        "<p>unclosed <a href=\"/y\">link", "&#xFFFFFFFFF; &#99999999;"}) {
    CAPTURE(html);
    CHECK(Rejoin(ParseHtml(html)) == html);
  }
  const std::vector<HtmlBlock> b = Blocks("</i>stray <b>x</i>y</b>");
  REQUIRE(b.size() == 1);
  CHECK(b[0].text == "stray xy");
  REQUIRE(b[0].atoms.size() == 2);  // both </i> have nothing to close
  CHECK(b[0].atoms[0].place == HtmlAtom::Place::kStart);
  REQUIRE(b[0].elements.size() == 1);
  CHECK(b[0].elements[0].open == "<b>");
}

TEST_CASE("deep or endless markup stays linear") {
  std::string deep;
  for (int i = 0; i < 100000; ++i) deep += "<b>";
  deep += "x";
  for (int i = 0; i < 50000; ++i) deep += "<a x=\"<a y='";
  const std::vector<HtmlPart> parts = ParseHtml(deep);
  CHECK(Rejoin(parts) == deep);
  // The last '>' inside a value: every '<' before it would scan to the end.
  std::string open;
  for (int i = 0; i < 200000; ++i) open += "<a ";
  open += "x=\">\"";
  CHECK(Rejoin(ParseHtml(open)) == open);
}

// A block with a given translation and alignment, rendered.
std::string Render(const std::string& html, const std::string& target,
                   const std::vector<int>& link, const std::vector<int>& best) {
  const HtmlBlock block = Blocks(html).at(0);
  WordAlignment al;
  al.source = SplitWords(block.text);
  al.target = SplitWords(target);
  al.link = link;
  al.best = best;
  return RenderBlock(block, target, al, PlaceTags(block, al));
}

TEST_CASE("inline elements wrap the words aligned to theirs") {
  // The dog runs. -> Der Hund läuft. ("Der" also looks at "dog")
  CHECK(Render("The <b>dog</b> runs.", "Der Hund läuft.", {0, 1, 2},
               {0, 1, 2}) == "Der <b>Hund</b> läuft.");
  CHECK(Render("The <b>dog</b> runs.", "Der Hund läuft.", {1, 1, 2},
               {0, 1, 2}) == "Der <b>Hund</b> läuft.");
  // Reordered: I <b>have</b> <i>seen</i> it. -> Ich habe es gesehen.
  CHECK(Render("I <b>have</b> <i>seen</i> it.", "Ich habe es gesehen.",
               {0, 1, 3, 2},
               {0, 1, 3, 2}) == "Ich <b>habe</b> es <i>gesehen</i>.");
  // Punctuation stays out unless the source put it in.
  CHECK(Render("<i>park</i>.", "Park.", {0}, {0}) == "<i>Park</i>.");
  CHECK(Render("<i>\"Hi,\" she said.</i>", "\"Hallo\", sagte sie.", {0, 1, 2},
               {0, 1, 2}) == "<i>\"Hallo\", sagte sie.</i>");
  {  // and WrappedText says what the element wraps, as written
    const HtmlBlock block = Blocks("<i>park</i>.").at(0);
    WordAlignment al{SplitWords(block.text), SplitWords("Park."), {0}, {0}};
    CHECK(WrappedText("Park.", al, PlaceTags(block, al), 0) == "Park");
  }
  // The model's text is escaped.
  CHECK(Render("a <b>x</b>", "<script> y", {0, 1}, {0, 1}) ==
        "&lt;script&gt; <b>y</b>");
}

TEST_CASE("nested and overlapping alignments still nest") {
  // Both children want word 0; the second gets the nearest free word.
  const std::string out =
      Render("<b><i>A</i> <u>B</u> C</b>", "X Y Z", {0, 0, 2}, {0, 1, 2});
  CHECK(out == "<b><i>X</i> <u>Y</u> Z</b>");
  // An element aligned outside its parent stays inside it.
  CHECK(Render("<b>A <i>B</i></b> C", "X Y Z", {0, 2, 2}, {0, 2, 1}) ==
        "<b><i>X</i></b> Y Z");
}

TEST_CASE("void elements and comments follow the word before them") {
  CHECK(Render("A <img src=\"x\"> dog runs.", "Ein Hund rennt.", {0, 1, 2},
               {0, 1, 2}) == "Ein <img src=\"x\"> Hund rennt.");
  CHECK(Render("Dogs<!-- c --> run.", "Hunde rennen.", {0, 1}, {0, 1}) ==
        "Hunde<!-- c --> rennen.");
  CHECK(Blocks("<br> <p>\n</p>").empty());  // nothing to translate
}

}  // namespace
}  // namespace heed
