// What a decoding strategy is asked for, and what it returns.
#ifndef HEED_CORE_DECODE_OPTIONS_H_
#define HEED_CORE_DECODE_OPTIONS_H_

#include <cstddef>
#include <functional>
#include <vector>

#include "core/error.h"
#include "core/model/step_capture.h"

namespace heed {

struct DecodingOptions {
  size_t beam_size = 4;             // 1 is greedy search
  float length_penalty = 2.0f;      // GNMT α: score = log P / ((5+|Y|)/6)^α
                                    // (2: best mean dev BLEU of 0.6, 2, 3)
  float max_length_ratio = 2.0f;    // at most ratio · source length + extra
  size_t max_length_extra = 10;     //   target tokens per sentence
  size_t nbest = 1;                 // hypotheses returned, 1..beam_size
  size_t no_repeat_ngram_size = 3;  // 0: off; n: no n-gram occurs twice,
                                    // nor any token three times in a row (3
                                    // was best on the dev sets)
  float repetition_penalty = 1.0f;  // 1: off; p > 1: log p of tokens already
                                    // produced multiplied by p
  bool token_confidence = false;    // return each token's probability and
                                    // its step's entropy
  std::vector<int> forced_prefix;   // target tokens every hypothesis starts
                                    // with (no EOS); search continues after
  size_t logit_lens = 0;  // k > 0: the logit lens's top k per layer and
                          // step (needs RunOptions::capture_hidden)
  // Polled before each batch and between decoding steps (from every
  // decoding thread at once, so it must be thread-safe); returning true
  // stops the request with heed::Cancelled. Empty: never cancelled.
  std::function<bool()> cancelled;
};

// Throws heed::Cancelled when the caller asked to stop.
inline void StopIfCancelled(const DecodingOptions& options) {
  if (options.cancelled && options.cancelled()) throw Cancelled();
}

// One of the top next-token candidates at a decoding step.
struct Candidate {
  int token = 0;
  float log_prob = 0.0f;
};

struct Hypothesis {
  std::vector<int> tokens;  // produced tokens, EOS last when it ended
  float log_prob = 0.0f;    // Σ log p(token)
  float score = 0.0f;       // log_prob with the length penalty applied
  // Only with token_confidence, from the model's distribution at each step
  // (before any rule against repetition):
  std::vector<float> token_probs;  // (T): p(tokens[i] | source, tokens[<i])
  std::vector<float> entropies;    // (T): −Σ p log p of step i, in nats
  // The rest only for the best hypothesis of each sentence (the first
  // returned): what its steps captured, T = tokens.size().
  DecoderMaps maps;  // attention, sublayer and value norms, as captured
  std::vector<std::vector<Candidate>> alternatives;  // (T, ≤5): the best
                                                     // tokens at each step,
                                                     // with attention
  // With logit_lens = k: decoder layer l's output at step i projected
  // through the output layer (the logit lens), its k best tokens and its
  // probability of tokens[i]. The last layer's is the real distribution.
  std::vector<Candidate> lens;          // (decoder_layers, T, k)
  std::vector<float> lens_token_probs;  // (decoder_layers, T)
};

// Number of next-token candidates kept per step when capturing.
constexpr size_t kAlternatives = 5;

}  // namespace heed

#endif  // HEED_CORE_DECODE_OPTIONS_H_
