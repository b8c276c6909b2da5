// Puts a block's markup back into its translation: each inline element
// around the target words aligned to the source words it wrapped, each atom
// after the words aligned to those before it; then writes the block as
// HTML. Elements stay nested as in the input and siblings never overlap,
// so the output is well-formed wherever the input is; every tag in it is
// one of the input's, copied byte for byte, and the model's text is
// escaped.
#ifndef HEED_CORE_HTML_PLACE_H_
#define HEED_CORE_HTML_PLACE_H_

#include <cstddef>
#include <string>
#include <vector>

#include "core/html/align.h"
#include "core/html/markup.h"

namespace heed {

struct TagPlacement {
  // Per element, the target words [first, last) it wraps; first == last:
  // empty, at the boundary before word `first`.
  std::vector<std::pair<size_t, size_t>> elements;
  // Per element, whether it opens after its first word's leading
  // punctuation and closes before its last word's trailing punctuation: as
  // in the source, where `<i>park</i>.` leaves the full stop out.
  std::vector<bool> trim_start, trim_end;
  std::vector<size_t> atoms;  // per atom, the boundary (before that word)
};

TagPlacement PlaceTags(const HtmlBlock& block, const WordAlignment& al);

// The text of `target` that element e wraps as RenderBlock writes it (its
// words, edge punctuation left out as placed); "" for an empty element.
std::string WrappedText(const std::string& target, const WordAlignment& al,
                        const TagPlacement& place, size_t e);

// The block's translation `target` as HTML, its markup placed.
std::string RenderBlock(const HtmlBlock& block, const std::string& target,
                        const WordAlignment& al, const TagPlacement& place);

}  // namespace heed

#endif  // HEED_CORE_HTML_PLACE_H_
