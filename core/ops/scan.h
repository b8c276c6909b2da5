// Searching a row of scores: where a top-k search must look again.
#ifndef HEED_CORE_OPS_SCAN_H_
#define HEED_CORE_OPS_SCAN_H_

#include <cstddef>

namespace heed::ops {

// The first i in [0, n) with x[i] > t, or n where there is none (NaN is
// never above).
size_t FirstAbove(const float* x, size_t n, float t);

}  // namespace heed::ops

#endif  // HEED_CORE_OPS_SCAN_H_
