// HTML mode: each text an HTML fragment, cut into blocks (markup.h), the
// blocks translated as plain text with their cross-attention, the markup
// put back around the aligned words (align.h, place.h).
#ifndef HEED_CORE_HTML_TRANSLATE_H_
#define HEED_CORE_HTML_TRANSLATE_H_

#include <functional>
#include <string>
#include <vector>

#include "core/options.h"
#include "core/result.h"

namespace heed {

// Translates plain texts (the translator's own Translate).
using PlainTranslate = std::function<std::vector<Result>(
    const std::vector<std::string>&, const TranslateOptions&,
    const SentenceCallback&)>;

// Results as Translate's, with each text HTML; on_sentence is called with
// the index of the text a block belongs to. `special` are the pieces
// that are no text (EOS, language tags).
std::vector<Result> TranslateHtml(const std::vector<std::string>& texts,
                                  const TranslateOptions& options,
                                  const SentenceCallback& on_sentence,
                                  const std::vector<std::string>& special,
                                  const PlainTranslate& translate);

}  // namespace heed

#endif  // HEED_CORE_HTML_TRANSLATE_H_
