// Decoding strategies over a batch of encoded sources. Deterministic: ties
// go to the earlier hypothesis, then to the lower token id.
#ifndef HEED_CORE_DECODE_SEARCH_H_
#define HEED_CORE_DECODE_SEARCH_H_

#include <vector>

#include "core/decode/options.h"
#include "core/model/model.h"

namespace heed {

using NBest = std::vector<Hypothesis>;  // best first

// One hypothesis per sentence: the most probable token at every step.
// spare: the decoder cache's memory, taken and left for the next search.
std::vector<NBest> GreedySearch(const Model& model, const EncoderOutput& enc,
                                const DecodingOptions& options,
                                const RunOptions& run,
                                SpareCache* spare = nullptr);

// Up to options.nbest hypotheses per sentence, sorted by score.
std::vector<NBest> BeamSearch(const Model& model, const EncoderOutput& enc,
                              const DecodingOptions& options,
                              const RunOptions& run,
                              SpareCache* spare = nullptr);

// Throws heed::Error unless 1 <= nbest <= beam_size and the forced prefix
// is at most 100000 tokens: what the search relies on. The ranges of every
// option are checked before, by the translator (core/option_table.h).
void CheckOptions(const DecodingOptions& options);

// Greedy when beam_size == 1, beam search otherwise. Throws heed::Error on
// invalid options.
std::vector<NBest> Search(const Model& model, const EncoderOutput& enc,
                          const DecodingOptions& options, const RunOptions& run,
                          SpareCache* spare = nullptr);

// The token forced at target position `position` (0-based), or -1 once the
// forced prefix is behind.
inline int ForcedToken(const DecodingOptions& options, size_t position) {
  return position < options.forced_prefix.size()
             ? options.forced_prefix[position]
             : -1;
}

// GNMT length penalty ((5 + length) / 6)^alpha.
float LengthPenalty(size_t length, float alpha);

// Most target tokens for a source of `source_length` tokens.
size_t MaxTargetLength(size_t source_length, const DecodingOptions& options);

// MaxTargetLength of every sentence of enc (B > 0); *capacity = the largest,
// the steps a decoder state for the batch must hold.
std::vector<size_t> TargetLimits(const EncoderOutput& enc,
                                 const DecodingOptions& options,
                                 size_t* capacity);

}  // namespace heed

#endif  // HEED_CORE_DECODE_SEARCH_H_
