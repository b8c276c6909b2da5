// Erasure (occlusion) attribution: how much the model's probability of each
// target piece of its translation falls when one source piece is taken
// away, under teacher forcing of the same translation. The ground truth the
// attention-based pictures are checked against (Li et al. 2016,
// "Understanding Neural Networks through Representation Erasure").
#ifndef HEED_CORE_EXPLAIN_ERASURE_H_
#define HEED_CORE_EXPLAIN_ERASURE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "core/model/run_options.h"

namespace heed {

class Model;

enum class ErasureMode {
  kOff = 0,
  kRemove = 1,  // the piece is taken out of the source (it gets shorter)
  kUnk = 2,     // the piece is replaced by <unk> (positions stay)
};

// "off", "remove" or "unk" → the mode; throws heed::Error otherwise.
ErasureMode ReadErasureMode(const std::string& name);
const char* ErasureModeName(ErasureMode mode);

// For the source pieces `source` (S, with tag and EOS) and the translation
// `target` (T pieces, EOS last when produced): effect (T, S), effect[t][j] =
// log p(target_t | source, target_<t) − the same with source piece j
// erased, for each j with erasable[j] (0 for the others: tags, EOS). One
// batched teacher-forced pass: the original and every erased source are
// encoded together and decoded in lockstep (64 sources at a time). `run`
// switches the same heads, sublayers and positions off as the translation;
// nothing is captured.
std::vector<float> ErasureEffects(const Model& model,
                                  const std::vector<int>& source,
                                  const std::vector<uint8_t>& erasable,
                                  const std::vector<int>& target,
                                  ErasureMode mode, const RunOptions& run);

}  // namespace heed

#endif  // HEED_CORE_EXPLAIN_ERASURE_H_
