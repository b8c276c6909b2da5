#include "core/decode/search.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "core/error.h"

namespace heed {

float LengthPenalty(size_t length, float alpha) {
  return std::pow((5.0f + static_cast<float>(length)) / 6.0f, alpha);
}

size_t MaxTargetLength(size_t source_length, const DecodingOptions& options) {
  const double limit = options.max_length_ratio * source_length +
                       static_cast<double>(options.max_length_extra);
  return std::max<size_t>(1, static_cast<size_t>(limit));
}

std::vector<size_t> TargetLimits(const EncoderOutput& enc,
                                 const DecodingOptions& options,
                                 size_t* capacity) {
  std::vector<size_t> limit(enc.batch);
  for (size_t b = 0; b < enc.batch; ++b) {
    limit[b] = MaxTargetLength(enc.lengths[b], options);
  }
  *capacity = limit.empty() ? 0 : *std::max_element(limit.begin(), limit.end());
  const size_t forced = options.forced_prefix.size();
  for (size_t b = 0; b < enc.batch; ++b) {
    // A prefix as long as the limit is a whole output (one that ran to
    // the limit, forced again to explain it).
    if (forced > limit[b]) {
      throw Error("target prefix of " + std::to_string(forced) +
                  " tokens passes the length limit of " +
                  std::to_string(limit[b]) + " tokens for this sentence");
    }
  }
  return limit;
}

// The ranges of the options are the translator's (core/option_table.cc);
// here only what the search itself relies on.
void CheckOptions(const DecodingOptions& options) {
  if (options.beam_size < 1 || options.nbest < 1 ||
      options.nbest > options.beam_size) {
    throw Error("n-best " + std::to_string(options.nbest) +
                " must be in [1, beam size " +
                std::to_string(options.beam_size) + "]");
  }
  if (options.forced_prefix.size() > 100000) {
    throw Error("target prefix must be at most 100000 tokens");
  }
}

std::vector<NBest> Search(const Model& model, const EncoderOutput& enc,
                          const DecodingOptions& options, const RunOptions& run,
                          SpareCache* spare) {
  CheckOptions(options);
  return options.beam_size == 1 ? GreedySearch(model, enc, options, run, spare)
                                : BeamSearch(model, enc, options, run, spare);
}

}  // namespace heed
