#include "core/html/markup.h"

#include <algorithm>
#include <initializer_list>
#include <unordered_map>
#include <utility>

#include "core/html/entities.h"

namespace heed {
namespace {

char Lower(char c) { return c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c; }
bool IsLetter(char c) { return Lower(c) >= 'a' && Lower(c) <= 'z'; }
bool OneOf(std::string_view name, std::initializer_list<std::string_view> s) {
  return std::find(s.begin(), s.end(), name) != s.end();
}

// Elements that bound sentences: the text never runs across them.
bool IsBlock(std::string_view n) {
  return OneOf(
      n, {"address", "article",  "aside",      "blockquote", "body",   "br",
          "caption", "dd",       "details",    "dialog",     "div",    "dl",
          "dt",      "fieldset", "figcaption", "figure",     "footer", "form",
          "h1",      "h2",       "h3",         "h4",         "h5",     "h6",
          "head",    "header",   "hgroup",     "hr",         "html",   "legend",
          "li",      "main",     "nav",        "ol",         "option", "p",
          "pre",     "section",  "summary",    "table",      "tbody",  "td",
          "tfoot",   "th",       "thead",      "title",      "tr",     "ul"});
}

bool IsVoid(std::string_view n) {
  return OneOf(n, {"area", "base", "br", "col", "embed", "hr", "img", "input",
                   "link", "meta", "param", "source", "track", "wbr"});
}

// Elements whose content is not HTML text to translate: kept whole.
bool IsOpaque(std::string_view n) {
  return OneOf(n, {"script", "style", "textarea", "xmp", "noscript", "template",
                   "svg", "math", "iframe", "object", "select"});
}

// Elements whose content ends at the first matching end tag, whatever it
// holds.
bool IsRawText(std::string_view n) {
  return OneOf(n, {"script", "style", "textarea", "xmp"});
}

struct Tag {
  bool end = false;           // </name>
  bool self_closing = false;  // <name ... />
  bool no_translate = false;  // translate="no" or class notranslate
  std::string name;           // lower case
  size_t length = 0;          // bytes from '<' to '>' included
};

// An attribute value asks to keep the element untranslated.
bool NoTranslate(std::string_view name, std::string_view value) {
  std::string v;
  for (char c : value) v.push_back(Lower(c));
  if (name == "translate") return v == "no";
  if (name != "class") return false;
  size_t at = 0;
  while ((at = v.find("notranslate", at)) != std::string::npos) {
    const size_t after = at + 11;
    if ((at == 0 || IsHtmlSpace(v[at - 1])) &&
        (after == v.size() || IsHtmlSpace(v[after]))) {
      return true;
    }
    at = after;
  }
  return false;
}

// Where each character that ends a tag or a value last occurs: past it, a
// tag cannot end, and reading one fails at once instead of scanning to the
// end of the input (which would make "<a <a <a ..." quadratic). And once a
// tag's reading has run off the end of the input, no '<' after it starts a
// tag either (`dead`): the rest is text, read once.
struct Last {
  size_t gt, dquote, squote;  // npos where there is none
  size_t dead = std::string_view::npos;
  explicit Last(std::string_view html)
      : gt(html.rfind('>')),
        dquote(html.rfind('"')),
        squote(html.rfind('\'')) {}
  bool Before(size_t at, char c) const {  // is there a c at or after `at`?
    const size_t last = c == '>' ? gt : c == '"' ? dquote : squote;
    return last != std::string_view::npos && last >= at;
  }
};

// Reads a start or end tag at html[at] == '<'; false where it is not one
// (the '<' is then text).
bool ReadTag(std::string_view html, size_t at, Last& last, Tag* tag) {
  if (!last.Before(at, '>') || at >= last.dead) return false;
  const std::string_view s = html.substr(at);
  size_t i = 1;
  tag->end = i < s.size() && s[i] == '/';
  if (tag->end) ++i;
  if (i >= s.size() || !IsLetter(s[i])) return false;
  while (i < s.size() && !IsHtmlSpace(s[i]) && s[i] != '>' && s[i] != '/') {
    tag->name.push_back(Lower(s[i++]));
  }
  while (i < s.size()) {  // attributes
    while (i < s.size() && (IsHtmlSpace(s[i]) || s[i] == '/')) {
      tag->self_closing = s[i] == '/';
      ++i;
    }
    if (i >= s.size()) break;
    if (s[i] == '>') {
      tag->length = i + 1;
      return true;
    }
    tag->self_closing = false;
    std::string name;
    while (i < s.size() && !IsHtmlSpace(s[i]) && s[i] != '>' && s[i] != '/' &&
           s[i] != '=') {
      name.push_back(Lower(s[i++]));
    }
    while (i < s.size() && IsHtmlSpace(s[i])) ++i;
    if (i >= s.size() || s[i] != '=') continue;
    ++i;
    while (i < s.size() && IsHtmlSpace(s[i])) ++i;
    size_t begin = i, end = i;
    if (i < s.size() && (s[i] == '"' || s[i] == '\'')) {
      if (!last.Before(at + i + 1, s[i])) break;
      const size_t close = s.find(s[i], i + 1);
      if (close == std::string_view::npos) return false;
      begin = i + 1;
      end = close;
      i = close + 1;
    } else {
      while (i < s.size() && !IsHtmlSpace(s[i]) && s[i] != '>') ++i;
      end = i;
    }
    tag->no_translate |= NoTranslate(name, s.substr(begin, end - begin));
  }
  last.dead = std::min(last.dead, at);  // ran off the end
  return false;
}

// Comments, doctypes and processing instructions: their length from '<'.
size_t SpecialLength(std::string_view s) {
  if (s.substr(0, 4) == "<!--") {
    const size_t end = s.find("-->", 4);
    return end == std::string_view::npos ? s.size() : end + 3;
  }
  if (s.size() > 1 && (s[1] == '!' || s[1] == '?')) {
    const size_t end = s.find('>');
    return end == std::string_view::npos ? s.size() : end + 1;
  }
  return 0;
}

// Where the element opened by `tag` (ending at `from`) ends: after its
// matching end tag, or at the end of the input where it has none. Inside
// an element that is not raw text, comments and script or style elements
// are skipped whole: an end tag in them ends nothing.
size_t ElementEnd(std::string_view html, size_t from, Last& last,
                  const Tag& tag) {
  const bool raw = IsRawText(tag.name);
  int depth = 1;
  size_t i = from;
  while ((i = html.find('<', i)) != std::string_view::npos) {
    if (const size_t n = raw ? 0 : SpecialLength(html.substr(i))) {
      i += n;
      continue;
    }
    Tag t;
    if (!ReadTag(html, i, last, &t)) {
      ++i;
      continue;
    }
    if (t.name == tag.name) {
      if (t.end && --depth == 0) return i + t.length;
      if (!t.end && !t.self_closing && !raw) ++depth;
    } else if (!raw && !t.end && IsRawText(t.name)) {
      i = ElementEnd(html, i + t.length, last, t);
      continue;
    }
    i += t.length;
  }
  return html.size();
}

// An inline element open at some point of the input.
struct Open {
  std::string name, tag;  // lower-case name, its start tag verbatim
  size_t text_begin = 0;  // in the block's text
  size_t raw_begin = 0;   // in the input
  int local = -1;         // its index in Parser::opens_, -1: an earlier block's
};

class Parser {
 public:
  explicit Parser(std::string_view html) : html_(html), last_(html) {}

  std::vector<HtmlPart> Run() {
    size_t i = 0;
    while (i < html_.size()) i = Step(i);
    // Elements the input leaves open end with it, as a browser reads them:
    // around their text, with no end tag of heed's.
    while (!stack_.empty() && stack_.back().local >= 0) {
      Finish(stack_.back(), "", html_.size());
      Pop();
    }
    EndBlock(html_.size());
    FlushMarkup();
    return std::move(parts_);
  }

 private:
  // An element of this block once closed: where its raw markup lies, for a
  // wordless one to be kept whole.
  struct Closed {
    HtmlElement element;
    size_t raw_begin = 0, raw_end = 0;
  };
  struct OpenInfo {
    int parent = -1;  // local index of the enclosing open element
    int closed = -1;  // index in closed_, -1: not closed in this block
  };

  size_t Step(size_t i) {
    const char c = html_[i];
    if (c == '&') return Entity(i);
    if (c != '<') {
      const size_t end = std::min(html_.find_first_of("<&", i), html_.size());
      text_.append(html_.substr(i, end - i));
      return end;
    }
    if (const size_t n = SpecialLength(html_.substr(i))) {
      AddAtom(i, n, Place(i + n));
      return i + n;
    }
    Tag tag;
    if (!ReadTag(html_, i, last_, &tag)) {
      text_.push_back('<');
      return i + 1;
    }
    return OnTag(i, tag);
  }

  size_t Entity(size_t i) {
    bool decoded = false;
    const size_t n = ReadEntity(html_.substr(i), &text_, &decoded);
    if (n == 0) {
      text_.push_back('&');
      return i + 1;
    }
    if (!decoded) AddAtom(i, n, HtmlAtom::Place::kAligned);
    return i + n;
  }

  size_t OnTag(size_t i, const Tag& tag) {
    const size_t after = i + tag.length;
    const bool whole = !tag.end && (IsOpaque(tag.name) || tag.no_translate);
    // As a browser: "/>" closes only void and foreign (svg, math) elements.
    const bool closed =
        IsVoid(tag.name) ||
        (tag.self_closing && (tag.name == "svg" || tag.name == "math"));
    const size_t end =
        whole && !closed ? ElementEnd(html_, after, last_, tag) : after;
    if (IsBlock(tag.name)) {  // the block ends; the tag stays where it is
      EndBlock(i);
      markup_.append(html_.substr(i, end - i));
      block_begin_ = end;
      return end;
    }
    if (whole || IsVoid(tag.name) || tag.self_closing) {
      AddAtom(i, end - i, Place(end));
    } else if (tag.end) {
      Close(i, tag);
    } else {
      const int parent = stack_.empty() ? -1 : stack_.back().local;
      opens_.push_back({parent, -1});
      stack_.push_back({tag.name, std::string(html_.substr(i, tag.length)),
                        text_.size(), i, static_cast<int>(opens_.size()) - 1});
      ++open_names_[tag.name];
    }
    return end;
  }

  // An end tag closes the innermost open element of its name, and any
  // opened inside it (they have no end tag of their own).
  void Close(size_t i, const Tag& tag) {
    if (open_names_[tag.name] == 0) {  // stray: nothing to close
      AddAtom(i, tag.length, HtmlAtom::Place::kStart);
      return;
    }
    auto it = std::find_if(stack_.rbegin(), stack_.rend(),
                           [&](const Open& o) { return o.name == tag.name; });
    const size_t depth = stack_.size() - 1 - (it - stack_.rbegin());
    while (stack_.size() > depth + 1) {
      Finish(stack_.back(), "", i);
      Pop();
    }
    const Open& o = stack_.back();
    if (o.local < 0) {  // opened in an earlier block
      AddAtom(i, tag.length, HtmlAtom::Place::kStart);
    } else {
      Finish(o, std::string(html_.substr(i, tag.length)), i + tag.length);
    }
    Pop();
  }

  void Pop() {
    --open_names_[stack_.back().name];
    stack_.pop_back();
  }

  void Finish(const Open& o, std::string close, size_t raw_end) {
    if (o.local < 0) return;
    HtmlElement e{o.tag, std::move(close), o.text_begin, text_.size(), -1};
    opens_[o.local].closed = static_cast<int>(closed_.size());
    closed_.push_back({std::move(e), o.raw_begin, raw_end});
  }

  // Markup that runs to the end of the input (an unclosed comment or
  // script) stays at the end: no translated word may follow it into it.
  HtmlAtom::Place Place(size_t end) const {
    return end == html_.size() ? HtmlAtom::Place::kEnd
                               : HtmlAtom::Place::kAligned;
  }

  void AddAtom(size_t i, size_t n, HtmlAtom::Place place) {
    atoms_.push_back({std::string(html_.substr(i, n)), text_.size(), place});
    atom_raw_.push_back(i);
  }

  // The block up to `raw_end` is complete: elements still open cross into
  // the next one, and their start tags stay at this block's end.
  void EndBlock(size_t raw_end) {
    // This block's opens are on top of the earlier blocks'.
    size_t first = stack_.size();
    while (first > 0 && stack_[first - 1].local >= 0) --first;
    for (size_t k = first; k < stack_.size(); ++k) {
      atoms_.push_back({stack_[k].tag, text_.size(), HtmlAtom::Place::kEnd});
      atom_raw_.push_back(raw_end);
      stack_[k].local = -1;
    }
    HtmlBlock block;
    block.raw = std::string(html_.substr(block_begin_, raw_end - block_begin_));
    KeepWordlessWhole();
    block.elements = LinkParents();
    block.atoms = std::move(atoms_);
    block.text = std::move(text_);
    const bool empty = std::all_of(block.text.begin(), block.text.end(),
                                   [](char c) { return IsHtmlSpace(c); });
    if (empty) {
      markup_.append(block.raw);
    } else {
      FlushMarkup();
      parts_.push_back({true, "", std::move(block)});
    }
    text_.clear();
    atoms_.clear();
    atom_raw_.clear();
    closed_.clear();
    opens_.clear();
    block_begin_ = raw_end;
  }

  // An element around no words (a linked image, an empty span) is kept
  // whole, with all it holds, where it stood. Elements in input order: an
  // outer one comes before, and takes, the ones inside it.
  void KeepWordlessWhole() {
    std::vector<size_t> words(text_.size() + 1, 0);  // non-space bytes before
    for (size_t k = 0; k < text_.size(); ++k) {
      words[k + 1] = words[k] + (IsHtmlSpace(text_[k]) ? 0 : 1);
    }
    std::vector<size_t> order(closed_.size());
    for (size_t k = 0; k < order.size(); ++k) order[k] = k;
    std::sort(order.begin(), order.end(), [&](size_t x, size_t y) {
      return closed_[x].raw_begin < closed_[y].raw_begin;
    });
    const size_t before = atoms_.size();  // atom_raw_ ascends up to here
    std::vector<char> dropped(before, 0);
    for (size_t k = 0; k < order.size(); ++k) {
      Closed& c = closed_[order[k]];
      if (c.raw_end == kDropped ||
          words[c.element.end] != words[c.element.begin]) {
        continue;
      }
      for (size_t n = k + 1;
           n < order.size() && closed_[order[n]].raw_begin < c.raw_end; ++n) {
        closed_[order[n]].raw_end = kDropped;
      }
      size_t a = std::lower_bound(atom_raw_.begin(), atom_raw_.begin() + before,
                                  c.raw_begin) -
                 atom_raw_.begin();
      for (; a < before && atom_raw_[a] < c.raw_end; ++a) dropped[a] = 1;
      atoms_.push_back(
          {std::string(html_.substr(c.raw_begin, c.raw_end - c.raw_begin)),
           c.element.begin, HtmlAtom::Place::kAligned});
      atom_raw_.push_back(c.raw_begin);
      dropped.push_back(0);
      c.raw_end = kDropped;
    }
    // Atoms in input order again, the whole elements among them.
    std::vector<size_t> kept;
    for (size_t a = 0; a < atoms_.size(); ++a) {
      if (!dropped[a]) kept.push_back(a);
    }
    std::stable_sort(kept.begin(), kept.end(), [&](size_t x, size_t y) {
      return atom_raw_[x] < atom_raw_[y];
    });
    std::vector<HtmlAtom> atoms;
    std::vector<size_t> raw;
    for (size_t a : kept) {
      atoms.push_back(std::move(atoms_[a]));
      raw.push_back(atom_raw_[a]);
    }
    atoms_ = std::move(atoms);
    atom_raw_ = std::move(raw);
  }

  // The elements kept, in the order they opened, each with the nearest
  // enclosing element kept as its parent.
  std::vector<HtmlElement> LinkParents() {
    std::vector<int> index(opens_.size(), -1);  // local → kept element
    std::vector<HtmlElement> out;
    for (size_t l = 0; l < opens_.size(); ++l) {
      const int parent = opens_[l].parent;
      const int up = parent < 0 ? -1 : index[parent];
      const int c = opens_[l].closed;
      if (c < 0 || closed_[c].raw_end == kDropped) {
        index[l] = up;  // not kept: its children hang from its parent
        continue;
      }
      HtmlElement e = std::move(closed_[c].element);
      e.parent = up;
      index[l] = static_cast<int>(out.size());
      out.push_back(std::move(e));
    }
    return out;
  }

  void FlushMarkup() {
    if (markup_.empty()) return;
    parts_.push_back({false, std::move(markup_), {}});
    markup_.clear();
  }

  static constexpr size_t kDropped = static_cast<size_t>(-1);
  std::string_view html_;
  Last last_;
  std::vector<HtmlPart> parts_;
  std::string markup_;      // verbatim markup since the last block
  size_t block_begin_ = 0;  // where the current block's input starts
  std::string text_;        // the current block's text
  std::vector<HtmlAtom> atoms_;
  std::vector<size_t> atom_raw_;  // each atom's input offset
  std::vector<Closed> closed_;
  std::vector<OpenInfo> opens_;  // the elements opened in this block
  std::vector<Open> stack_;      // open inline elements, outermost first
  std::unordered_map<std::string, size_t> open_names_;  // names on stack_
};

}  // namespace

std::vector<HtmlPart> ParseHtml(std::string_view html) {
  return Parser(html).Run();
}

std::string EscapeHtmlText(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    if (c == '&') {
      out += "&amp;";
    } else if (c == '<') {
      out += "&lt;";
    } else if (c == '>') {
      out += "&gt;";
    } else {
      out.push_back(c);
    }
  }
  return out;
}

}  // namespace heed
