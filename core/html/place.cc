#include "core/html/place.h"

#include <algorithm>
#include <tuple>

namespace heed {
namespace {

using Range = std::pair<size_t, size_t>;

// The source words [first, last) that the text [begin, end) touches.
Range Touched(const std::vector<WordSpan>& words, size_t begin, size_t end) {
  size_t first = 0;
  while (first < words.size() && words[first].end <= begin) ++first;
  size_t last = first;
  while (last < words.size() && words[last].begin < end) ++last;
  return {first, last};
}

// The target words linked to the source words [first, last): the span from
// the first to the last of them; empty where none is. With `mutual`, only
// the words that are also some source word's best: an article attends to
// its noun, but the noun is where the noun's source word looks.
Range Linked(const WordAlignment& al, Range source, bool mutual) {
  std::vector<char> best(al.link.size(), !mutual);
  for (size_t w = source.first; mutual && w < source.second; ++w) {
    const int t = al.best[w];
    if (t >= 0 && t < static_cast<int>(best.size())) best[t] = 1;
  }
  size_t lo = al.link.size(), hi = 0;
  for (size_t t = 0; t < al.link.size(); ++t) {
    const int s = al.link[t];
    const bool in = s >= static_cast<int>(source.first) &&
                    s < static_cast<int>(source.second);
    if (in && best[t]) {
      lo = std::min(lo, t);
      hi = t + 1;
    }
  }
  return lo < hi ? Range{lo, hi} : Range{0, 0};
}

// Where the target words an element wants lie, before nesting is enforced.
Range Wanted(const HtmlElement& e, const WordAlignment& al) {
  const size_t ns = al.source.size(), nt = al.target.size();
  const Range source = Touched(al.source, e.begin, e.end);
  if (nt == 0 || source.first >= source.second) return {0, 0};
  if (source.first == 0 && source.second == ns) return {0, nt};  // all of it
  for (bool mutual : {true, false}) {
    const Range linked = Linked(al, source, mutual);
    if (linked.first < linked.second) return linked;
  }
  const size_t at = std::min(nt - 1, source.first * nt / ns);  // by position
  return {at, at + 1};
}

// The longest run in [b, e) of words that `owner` gives to `parent`, or
// failing that the one such word nearest to b; {k, k} where there is none.
Range FreeRun(const std::vector<int>& owner, int parent, Range want,
              Range within) {
  Range best{0, 0};
  for (size_t t = want.first; t < want.second;) {
    if (owner[t] != parent) {
      ++t;
      continue;
    }
    size_t end = t;
    while (end < want.second && owner[end] == parent) ++end;
    if (end - t > best.second - best.first) best = {t, end};
    t = end;
  }
  if (best.first < best.second) return best;
  for (size_t d = 0; d < within.second - within.first; ++d) {
    for (size_t t : {want.first + d, want.first - d - 1}) {
      if (t >= within.first && t < within.second && owner[t] == parent) {
        return {t, t + 1};
      }
    }
  }
  const size_t k = std::clamp(want.first, within.first, within.second);
  return {k, k};
}

size_t AtomBoundary(const HtmlAtom& a, const WordAlignment& al) {
  const size_t ns = al.source.size(), nt = al.target.size();
  if (a.place == HtmlAtom::Place::kStart) return 0;
  if (a.place == HtmlAtom::Place::kEnd) return nt;
  size_t before = 0;  // source words that start before the atom
  while (before < ns && al.source[before].begin < a.at) ++before;
  if (before == 0) return 0;
  if (before == ns) return nt;
  const Range after_word = Linked(al, {before - 1, before}, false);
  if (after_word.first < after_word.second) return after_word.second;
  const Range next_word = Linked(al, {before, before + 1}, false);
  if (next_word.first < next_word.second) return next_word.first;
  return before * nt / ns;
}

constexpr std::string_view kMarks[] = {
    ".",      ",",      ";",      ":",      "!",      "?",
    ")",      "(",      "]",      "[",      "\"",     "'",
    "\u201C", "\u201D", "\u201E", "\u2018", "\u2019", "\u00AB",
    "\u00BB", "\u2026", "\u00BF", "\u00A1"};

// The bytes of the punctuation mark text starts (or ends) with; 0: none.
size_t EdgeMark(std::string_view text, bool at_end) {
  for (std::string_view m : kMarks) {
    if (text.size() >= m.size() &&
        text.substr(at_end ? text.size() - m.size() : 0, m.size()) == m) {
      return m.size();
    }
  }
  return 0;
}

// Bytes of punctuation at the end (or start) of a word, never all of it.
size_t Punctuation(std::string_view word, bool at_end) {
  size_t n = 0;
  for (;;) {
    const std::string_view rest =
        at_end ? word.substr(0, word.size() - n) : word.substr(n);
    const size_t m = EdgeMark(rest, at_end);
    if (m == 0 || m == rest.size()) return n;
    n += m;
  }
}

// Where an insert goes around the gap before its word, as the source had
// it: glued to the word before, to the word after, or with space on both
// sides.
enum class Glue { kBefore, kAfter, kBetween };

Glue GlueAt(const std::string& text, size_t at) {
  const bool space_before = at == 0 || IsHtmlSpace(text[at - 1]);
  const bool space_after = at >= text.size() || IsHtmlSpace(text[at]);
  if (!space_before) return Glue::kBefore;
  return space_after ? Glue::kBetween : Glue::kAfter;
}

// Writes a block: the target's text escaped, the markup at its places.
class Renderer {
 public:
  Renderer(const HtmlBlock& block, const std::string& target,
           const WordAlignment& al, const TagPlacement& place)
      : block_(block), target_(target), al_(al), place_(place) {
    const size_t nt = al.target.size();
    opens_.resize(nt + 1);
    closes_.resize(nt + 1);
    inserts_.resize(nt + 1);
    for (size_t i = 0; i < block.elements.size(); ++i) {
      const HtmlElement& e = block.elements[i];
      const auto [first, last] = place.elements[i];
      if (first == last) {
        inserts_[first].push_back(
            {e.begin, inserts_[first].size(), e.open + e.close});
      } else {
        opens_[first].push_back(i);  // parents first
        closes_[last].push_back(i);
      }
    }
    for (auto& c : closes_) std::reverse(c.begin(), c.end());  // children first
    for (size_t a = 0; a < block.atoms.size(); ++a) {
      const size_t k = place.atoms[a];
      inserts_[k].push_back(
          {block.atoms[a].at, inserts_[k].size(), block.atoms[a].markup});
    }
    for (auto& list : inserts_) std::sort(list.begin(), list.end());
  }

  std::string Run() {
    const size_t nt = al_.target.size();
    if (nt == 0) {
      Inserts(0, Glue::kBefore, Glue::kBetween);
      Text(0, target_.size());
      return std::move(out_);
    }
    // What stood before the first word stays before the text's indent.
    Inserts(0, Glue::kBefore, Glue::kBetween);
    Text(0, al_.target[0].begin);
    Word(0);
    for (size_t k = 1; k <= nt; ++k) {
      const size_t gap_end = k == nt ? target_.size() : al_.target[k].begin;
      Inserts(k, Glue::kBefore, Glue::kBefore);
      Text(al_.target[k - 1].end, gap_end);
      Inserts(k, Glue::kAfter, Glue::kBetween);
      if (k < nt) Word(k);
    }
    return std::move(out_);
  }

 private:
  struct Insert {
    size_t at, order;
    std::string markup;
    bool operator<(const Insert& o) const {
      return std::tie(at, order) < std::tie(o.at, o.order);
    }
  };

  void Text(size_t begin, size_t end) {
    out_ +=
        EscapeHtmlText(std::string_view(target_).substr(begin, end - begin));
  }

  // The inserts at boundary k glued as [lo, hi] says; one with space on
  // both sides gets a space after it where the target's gap had one.
  void Inserts(size_t k, Glue lo, Glue hi) {
    for (const Insert& in : inserts_[k]) {
      const size_t nt = al_.target.size();
      Glue g = GlueAt(block_.text, in.at);
      if (k == 0 && g == Glue::kBefore) g = Glue::kAfter;
      if (g < lo || g > hi) continue;
      out_ += in.markup;
      const bool spaced =
          k < nt && (k == 0 ? al_.target[0].begin == 0
                            : al_.target[k - 1].end < al_.target[k].begin);
      if (g == Glue::kBetween && spaced) out_ += ' ';
    }
  }

  // Word k with the opens before it and the closes after it; an element
  // that left its word's punctuation out in the source leaves it out here.
  void Word(size_t k) {
    const WordSpan w = al_.target[k];
    const std::string_view word =
        std::string_view(target_).substr(w.begin, w.end - w.begin);
    const size_t lead = Punctuation(word, false);
    const size_t trail = Punctuation(word.substr(lead), true);
    size_t i = 0;
    const std::vector<size_t>& opens = opens_[k];
    for (; i < opens.size() && !place_.trim_start[opens[i]]; ++i) {
      out_ += block_.elements[opens[i]].open;
    }
    Text(w.begin, w.begin + lead);
    for (; i < opens.size(); ++i) out_ += block_.elements[opens[i]].open;
    Text(w.begin + lead, w.end - trail);
    const std::vector<size_t>& closes = closes_[k + 1];
    size_t c = 0;
    for (; c < closes.size() && place_.trim_end[closes[c]]; ++c) {
      out_ += block_.elements[closes[c]].close;
    }
    Text(w.end - trail, w.end);
    for (; c < closes.size(); ++c) out_ += block_.elements[closes[c]].close;
  }

  const HtmlBlock& block_;
  const std::string& target_;
  const WordAlignment& al_;
  const TagPlacement& place_;
  std::vector<std::vector<size_t>> opens_, closes_;  // per boundary
  std::vector<std::vector<Insert>> inserts_;         // per boundary
  std::string out_;
};

}  // namespace

TagPlacement PlaceTags(const HtmlBlock& block, const WordAlignment& al) {
  const size_t nt = al.target.size();
  TagPlacement place;
  std::vector<int> owner(nt, -1);  // the innermost element on each word
  for (size_t i = 0; i < block.elements.size(); ++i) {
    const HtmlElement& e = block.elements[i];
    const Range within = e.parent < 0 ? Range{0, nt} : place.elements[e.parent];
    Range want = Wanted(e, al);
    want = {std::clamp(want.first, within.first, within.second),
            std::clamp(want.second, within.first, within.second)};
    const Range got = FreeRun(owner, e.parent, want, within);
    for (size_t t = got.first; t < got.second; ++t) {
      owner[t] = static_cast<int>(i);
    }
    place.elements.push_back(got);
    // Punctuation at the edge of a word stays out unless the source put it
    // in: "<i>park</i>." and "<a>beach</a> tomorrow." both close before
    // the full stop.
    const std::string_view text =
        std::string_view(block.text).substr(e.begin, e.end - e.begin);
    place.trim_start.push_back(EdgeMark(text, false) == 0);
    place.trim_end.push_back(EdgeMark(text, true) == 0);
  }
  for (const HtmlAtom& a : block.atoms) {
    place.atoms.push_back(AtomBoundary(a, al));
  }
  return place;
}

std::string WrappedText(const std::string& target, const WordAlignment& al,
                        const TagPlacement& place, size_t e) {
  const auto [first, last] = place.elements[e];
  if (first >= last) return "";
  const std::string_view t(target);
  // As Renderer::Word cuts a word: leading marks, then trailing ones.
  auto word = [&](size_t k) {
    return t.substr(al.target[k].begin, al.target[k].end - al.target[k].begin);
  };
  const size_t lead_first = Punctuation(word(first), false);
  const size_t lead_last = Punctuation(word(last - 1), false);
  const size_t trail = Punctuation(word(last - 1).substr(lead_last), true);
  const size_t begin =
      al.target[first].begin + (place.trim_start[e] ? lead_first : 0);
  const size_t end = al.target[last - 1].end - (place.trim_end[e] ? trail : 0);
  return std::string(t.substr(begin, end - begin));
}

std::string RenderBlock(const HtmlBlock& block, const std::string& target,
                        const WordAlignment& al, const TagPlacement& place) {
  Renderer r(block, target, al, place);
  return r.Run();
}

}  // namespace heed
