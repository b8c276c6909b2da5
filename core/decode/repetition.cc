#include "core/decode/repetition.h"

#include <algorithm>
#include <limits>

namespace heed {

bool PenalizesRepeats(const DecodingOptions& options) {
  return options.no_repeat_ngram_size > 0 || options.repetition_penalty != 1.0f;
}

namespace {

// Bans the token after every earlier occurrence of the hypothesis's last
// n - 1 tokens.
void BanRepeatedNgrams(const std::vector<int>& tokens, size_t n,
                       float* log_probs, size_t vocab) {
  const size_t length = tokens.size();
  if (n == 0 || length + 1 < n) return;
  const size_t context = n - 1;  // tokens an n-gram shares with the tail
  const auto tail = tokens.end() - static_cast<std::ptrdiff_t>(context);
  for (size_t i = 0; i + n <= length; ++i) {
    const auto start = tokens.begin() + static_cast<std::ptrdiff_t>(i);
    if (std::equal(start, start + static_cast<std::ptrdiff_t>(context), tail)) {
      const int banned = tokens[i + context];
      if (banned >= 0 && static_cast<size_t>(banned) < vocab) {
        log_probs[banned] = -std::numeric_limits<float>::infinity();
      }
    }
  }
}

// Bans the hypothesis's last token when it already ends it twice in a row:
// with n ≥ 3 an n-gram rule alone lets "Abend Abend Abend" through.
void BanThirdInARow(const std::vector<int>& tokens, float* log_probs,
                    size_t vocab) {
  const size_t n = tokens.size();
  if (n < 2 || tokens[n - 1] != tokens[n - 2]) return;
  const int banned = tokens[n - 1];
  if (banned >= 0 && static_cast<size_t>(banned) < vocab) {
    log_probs[banned] = -std::numeric_limits<float>::infinity();
  }
}

}  // namespace

void PenalizeRepeats(const std::vector<int>& tokens,
                     const DecodingOptions& options, float* log_probs,
                     size_t vocab) {
  if (options.repetition_penalty != 1.0f) {
    std::vector<bool> seen(vocab, false);
    for (const int t : tokens) {
      if (t < 0 || static_cast<size_t>(t) >= vocab || seen[t]) continue;
      seen[t] = true;
      log_probs[t] *= options.repetition_penalty;
    }
  }
  BanRepeatedNgrams(tokens, options.no_repeat_ngram_size, log_probs, vocab);
  if (options.no_repeat_ngram_size > 0)
    BanThirdInARow(tokens, log_probs, vocab);
}

}  // namespace heed
