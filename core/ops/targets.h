// The SIMD targets heed dispatches between (Highway's: AVX3_DL, AVX2,
// SSE4, ...), and a way to stop at one of them, to measure or compare the
// code path a CPU without the better ones runs. Process-wide: it changes
// dispatch for every translator, so call it before translating.
#ifndef HEED_CORE_OPS_TARGETS_H_
#define HEED_CORE_OPS_TARGETS_H_

#include <string>
#include <vector>

namespace heed::ops {

// The targets this CPU supports and the build compiled, best first.
std::vector<std::string> SimdTargets();

// The target dispatch uses now.
std::string SimdTarget();

// Dispatches to `name` (one of SimdTargets(), any case) and nothing better.
// Throws heed::Error for a target this CPU or build lacks.
void LimitSimdTarget(const std::string& name);

}  // namespace heed::ops

#endif  // HEED_CORE_OPS_TARGETS_H_
