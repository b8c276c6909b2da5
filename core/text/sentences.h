// Splits a paragraph into sentences so each is translated on its own, and
// keeps everything between them (spaces, line breaks) verbatim, so the
// translation can be reassembled with the same layout.
#ifndef HEED_CORE_TEXT_SENTENCES_H_
#define HEED_CORE_TEXT_SENTENCES_H_

#include <string>
#include <string_view>
#include <vector>

namespace heed {

struct Segment {
  std::string text;
  bool is_sentence = false;  // false: whitespace to copy as it is
};

// Concatenating the segments' text gives the input back exactly.
std::vector<Segment> SplitSentences(std::string_view paragraph);

}  // namespace heed

#endif  // HEED_CORE_TEXT_SENTENCES_H_
