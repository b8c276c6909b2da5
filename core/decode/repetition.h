// Rules against repetition, applied to one hypothesis's next-token
// log-probabilities before a search ranks them. A small model that has not
// learnt when to stop can otherwise loop ("Abend Abend Abend ...").
#ifndef HEED_CORE_DECODE_REPETITION_H_
#define HEED_CORE_DECODE_REPETITION_H_

#include <cstddef>
#include <vector>

#include "core/decode/options.h"

namespace heed {

// True when options ask for either rule; searches skip the work otherwise.
bool PenalizesRepeats(const DecodingOptions& options);

// tokens: the hypothesis so far, oldest first. log_probs [vocab]: the next
// token's log-probabilities, changed in place:
// - no_repeat_ngram_size n > 0: every token that would complete an n-gram
//   already in `tokens` gets −∞ (n = 1 bans every token produced so far);
// - repetition_penalty p ≠ 1: every token already in `tokens` has its
//   log-probability multiplied by p (log p ≤ 0, so p > 1 lowers it).
void PenalizeRepeats(const std::vector<int>& tokens,
                     const DecodingOptions& options, float* log_probs,
                     size_t vocab);

}  // namespace heed

#endif  // HEED_CORE_DECODE_REPETITION_H_
