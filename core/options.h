// What a translation request asks for: the decoding options (decode/
// options.h) and what the translator adds around them: language, what to
// capture, heads, sublayers or positions to switch off, limits, threads, a
// forced prefix.
#ifndef HEED_CORE_OPTIONS_H_
#define HEED_CORE_OPTIONS_H_

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "core/decode/options.h"
#include "core/model/run_options.h"

namespace heed {

// One attention head to switch off.
struct HeadRef {
  AttentionKind kind = AttentionKind::kEncoder;
  size_t layer = 0;
  size_t head = 0;
};

// One sublayer to switch off: its kind and layer.
struct SublayerRef {
  SublayerKind kind = SublayerKind::kEncoderSelf;
  size_t layer = 0;
};

// The decoding options (beam size, length penalty, limits, n-best, rules
// against repetition; see decode/options.h for their defaults) and what the
// translator adds around them.
struct TranslateOptions : DecodingOptions {
  std::string to;  // target language code ("de"); required when the model
                   // has several target languages, else optional
  bool attention = false;  // return every attention map
  // The text is an HTML fragment: its tags are kept and its text translated
  // block by block, inline markup put back around the aligned words
  // (core/html/). The result's text is HTML; its sentences are the blocks'.
  bool html = false;
  bool contributions = false;  // and the norm-based contributions
  bool alti = false;           // and ALTI+ (explain/alti.h)
  // Word alignments of each text (Result::alignment), from the decoder's
  // cross-attention; plain text only.
  bool alignments = false;
  std::vector<HeadRef> masked_heads;      // heads whose output is zeroed
  std::vector<SublayerRef> switched_off;  // sublayers whose output is zeroed
  // Where a translation writes the unknown piece (a character the
  // vocabulary lacks, " ⁇ "), write the source text of the unknown piece it
  // attends to instead, as SentencePiece normalises it, or nothing where
  // the source has none (core/unknowns.h); false keeps " ⁇ ".
  bool copy_unknown = true;
  std::string positions = "on";  // "on", "off" (no positional encoding) or
                                 // "shuffled" (the source's positions
                                 // permuted; see RunOptions::positions)
  std::string erasure = "off";   // "remove" (each source piece taken out) or
                                 // "unk" (replaced by <unk>): each source
                                 // piece's effect on each target piece
                                 // (explain/erasure.h); "off"
  std::optional<HeadRef> query_key;  // a head whose query and key vectors
                                     // to return (with the attention)
  size_t max_sentence_tokens = 256;  // longer sentences are translated in
                                     // pieces of at most this many tokens
  size_t max_batch = 32;             // sentences decoded together (fewer
                                     // when beam × batch would pass 1024
                                     // hypotheses; the output is the same)
  size_t max_input_bytes = size_t{1} << 20;  // a longer text is refused
                                             // (heed::TextError), in [1, 2^30]
  // With attention: the most the maps of one text may take (counted at the
  // longest possible translation); a larger text throws heed::TextError
  // before decoding, and the other texts are not translated either.
  size_t max_attention_bytes = size_t{256} << 20;
  size_t threads = 1;  // batches decoded at once, one per thread (native
                       // builds; the result does not depend on it)
  // A start the translation must take (CTranslate2's target_prefix): as
  // text, tokenised like the model's output, or as target pieces. The
  // search continues after it; its tokens count in the score. Every text
  // must then be one sentence (the prefix applies to each).
  std::string target_prefix;
  std::vector<std::string> target_prefix_pieces;
};

}  // namespace heed

#endif  // HEED_CORE_OPTIONS_H_
