// An HTML fragment as heed translates it: cut into blocks at block elements
// (p, li, h1-h6, td, div, br, ...), each block's text with its tags removed
// and its entities decoded, and the inline markup (a, b, em, span, ...)
// recorded as ranges of that text so that it can be put back around the
// words of the translation. Everything else is kept verbatim: the block
// tags where they stood, void elements, comments, entities heed does not
// decode, and whole elements left untranslated (script, style, textarea,
// translate="no", class="notranslate"). No tag or attribute is ever made
// up: the output copies the input's markup, byte for byte.
#ifndef HEED_CORE_HTML_MARKUP_H_
#define HEED_CORE_HTML_MARKUP_H_

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace heed {

// Markup kept whole at one place in a block's text.
struct HtmlAtom {
  enum class Place {
    kAligned,  // follows the source words before it into the translation
    kStart,    // at the block's start: closes an element of an earlier block
    kEnd,      // at the block's end: opens an element a later block closes
  };
  std::string markup;  // verbatim from the input
  size_t at = 0;       // byte offset in the block's text it stood at
  Place place = Place::kAligned;
};

// An inline element opened and closed within one block, around text.
struct HtmlElement {
  std::string open, close;    // its tags, verbatim
  size_t begin = 0, end = 0;  // the block text it wraps, bytes [begin, end)
  int parent = -1;            // the element it lies in (index), -1: none
};

struct HtmlBlock {
  std::string text;  // what the model translates: tags out, entities decoded
  std::vector<HtmlElement> elements;  // parents before their children
  std::vector<HtmlAtom> atoms;        // in input order
  std::string raw;  // the input it came from; copied as is when `text` has
                    // nothing to translate
};

// The fragment in input order: verbatim markup between blocks, and blocks.
struct HtmlPart {
  bool is_block = false;
  std::string markup;  // !is_block: copied as it is
  HtmlBlock block;     // is_block
};

// ASCII white space as HTML has it: space, tab, LF, CR, FF.
inline bool IsHtmlSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f';
}

// Never throws on any input: markup it cannot read is text, and text is
// escaped again on output.
std::vector<HtmlPart> ParseHtml(std::string_view html);

// Text as HTML: &, < and > escaped.
std::string EscapeHtmlText(std::string_view text);

}  // namespace heed

#endif  // HEED_CORE_HTML_MARKUP_H_
