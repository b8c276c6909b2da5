// Which source word each word of a translation came from, read from the
// decoder's cross-attention: the word alignment that puts inline markup
// back around the right words (core/html/place.h).
#ifndef HEED_CORE_HTML_ALIGN_H_
#define HEED_CORE_HTML_ALIGN_H_

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace heed {

struct WordSpan {
  size_t begin = 0, end = 0;  // bytes [begin, end) of a run of non-space
};

// The words of a text: its maximal runs of bytes other than HTML's white
// space (IsHtmlSpace).
std::vector<WordSpan> SplitWords(std::string_view text);

struct WordAlignment {
  std::vector<WordSpan> source;  // words of the block's text
  std::vector<WordSpan> target;  // words of its translation
  std::vector<int> link;         // per target word, its source word (-1:
                                 // none, in a sentence heed could not place)
  std::vector<int> best;         // per source word, the target word that
                                 // attends to it most (-1: none)
};

// Which attention aligns: one decoder layer's cross-attention averaged over
// its heads; a layer below 0 counts from the top (-1: the last).
struct AlignWith {
  int layer = -1;
};

// `source` is a block's text and `target` its translation, `sentences` the
// sentence results that made it, with attention, in order; `special` the
// pieces that are no part of the text (EOS, language tags), either side.
WordAlignment AlignWords(const std::string& source, const std::string& target,
                         const std::vector<SentenceResult>& sentences,
                         const std::vector<std::string>& special,
                         AlignWith with);

}  // namespace heed

#endif  // HEED_CORE_HTML_ALIGN_H_
