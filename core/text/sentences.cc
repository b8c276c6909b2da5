#include "core/text/sentences.h"

#include <algorithm>
#include <array>
#include <cctype>

namespace heed {
namespace {

bool IsSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' ||
         c == '\v';
}

// Words whose final period does not end a sentence (English and German).
bool IsAbbreviation(std::string_view word) {
  static constexpr std::array<std::string_view, 28> kAbbreviations = {
      "Mr",  "Mrs", "Ms",  "Dr",  "Prof", "St",  "Jr", "Sr", "vs", "etc",
      "e.g", "i.e", "z.B", "u.a", "bzw",  "ca",  "Nr", "Hr", "Fr", "Str",
      "usw", "vgl", "d.h", "Abb", "Jan",  "Feb", "No", "Co"};
  if (word.size() == 1 && std::isalpha(static_cast<unsigned char>(word[0]))) {
    return true;  // an initial: "J. Smith"
  }
  // Dotted initials: "U.S", "E.S.E" (the final period is not part of word).
  bool initials = word.size() >= 3;
  for (size_t i = 0; i < word.size() && initials; ++i) {
    initials = i % 2 == 0 ? std::isalpha(static_cast<unsigned char>(word[i]))
                          : word[i] == '.';
  }
  if (initials) return true;
  return std::find(kAbbreviations.begin(), kAbbreviations.end(), word) !=
         kAbbreviations.end();
}

bool IsClosing(char c) { return c == '"' || c == '\'' || c == ')' || c == ']'; }

// Length of a sentence-final mark at s[i] (".", "!", "?", or "…"), or 0.
size_t FinalMark(std::string_view s, size_t i) {
  if (s[i] == '.' || s[i] == '!' || s[i] == '?') return 1;
  if (s.compare(i, 3, "\xE2\x80\xA6") == 0) return 3;  // …
  return 0;
}

}  // namespace

std::vector<Segment> SplitSentences(std::string_view s) {
  std::vector<Segment> out;
  size_t i = 0;
  const size_t n = s.size();
  auto add = [&out](std::string_view text, bool sentence) {
    if (!text.empty()) out.push_back(Segment{std::string(text), sentence});
  };
  while (i < n) {
    size_t start = i;
    while (i < n && IsSpace(s[i])) ++i;
    add(s.substr(start, i - start), false);
    start = i;
    // Scan to the end of this sentence: a line break, or a final mark
    // followed by space and a character that may start a sentence.
    while (i < n && s[i] != '\n' && s[i] != '\r') {
      const size_t mark = FinalMark(s, i);
      if (mark == 0) {
        ++i;
        continue;
      }
      size_t end = i + mark;
      while (end < n && (FinalMark(s, end) != 0 || IsClosing(s[end]))) {
        end += FinalMark(s, end) != 0 ? FinalMark(s, end) : 1;
      }
      if (end >= n || !IsSpace(s[end])) {
        i = end;
        continue;
      }
      size_t next = end;
      while (next < n && (s[next] == ' ' || s[next] == '\t')) ++next;
      const bool lower_next =
          next < n && std::islower(static_cast<unsigned char>(s[next]));
      size_t word = i;
      while (word > start && !IsSpace(s[word - 1])) --word;
      const bool abbreviation =
          s[i] == '.' && mark == 1 && IsAbbreviation(s.substr(word, i - word));
      i = end;
      if (!lower_next && !abbreviation) break;
    }
    // Trailing spaces belong to the separator, not the sentence.
    size_t stop = i;
    while (stop > start && IsSpace(s[stop - 1])) --stop;
    add(s.substr(start, stop - start), true);
    i = stop;
  }
  return out;
}

}  // namespace heed
