// A request's units decoded in batches: each batch encoded and searched
// together, batches run in waves of one per thread, handed back in unit
// order so the result does not depend on the thread count.
#ifndef HEED_CORE_BATCH_H_
#define HEED_CORE_BATCH_H_

#include <cstddef>
#include <functional>
#include <vector>

#include "core/assemble.h"
#include "core/decode/search.h"
#include "core/model/model.h"
#include "core/plan.h"

namespace heed {

// Units [first, last) encoded and searched together.
struct Batch {
  size_t first = 0, last = 0;  // the units, indices into the request's
  EncoderOutput enc;           // memory, cross keys/values and captures
  std::vector<NBest> found;    // per unit, best first
  std::vector<ForcedCaptures> replays;  // per unit, when the options need a
                                        // teacher-forced pass over the best
                                        // hypothesis (batch.cc NeedsReplay)
  // Per unit, per hypothesis of found: the source unknown each of its
  // unknown pieces copies (CopiedUnknowns); empty when copying is off.
  std::vector<std::vector<std::vector<int>>> copies;
  double encode_ms = 0, decode_ms = 0;  // wall time of each stage
};

// Unit i of batch b's captures, moved out of the batch.
EncoderMaps TakeMaps(Batch& b, size_t i);

// Decodes the units in waves of up to `threads` batches, one batch per
// thread, and hands each batch to `done` in unit order, so the result does
// not depend on the thread count. A wave's units are shared evenly, so a
// paragraph shorter than `threads` full batches still keeps every thread
// busy.
void DecodeWaves(const Model& model, const std::vector<Unit>& units,
                 const Plan& plan, size_t max_batch, size_t threads,
                 const std::function<void(Batch&)>& done);

}  // namespace heed

#endif  // HEED_CORE_BATCH_H_
