#include "core/ops/scan.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "core/ops/scan.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep

#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace heed::ops {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

size_t FirstAboveImpl(const float* HWY_RESTRICT x, size_t n, float t) {
  const hn::ScalableTag<float> d;
  const size_t lanes = hn::Lanes(d);
  const auto vt = hn::Set(d, t);
  size_t i = 0;
  // Two vectors per test: most of a vocabulary row lies below the k-th
  // best, and the test is the loop's only branch.
  for (; i + 2 * lanes <= n; i += 2 * lanes) {
    const auto above = hn::Or(hn::Gt(hn::LoadU(d, x + i), vt),
                              hn::Gt(hn::LoadU(d, x + i + lanes), vt));
    if (!hn::AllFalse(d, above)) break;
  }
  for (; i < n; ++i) {
    if (x[i] > t) return i;
  }
  return n;
}

}  // namespace HWY_NAMESPACE
}  // namespace heed::ops
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace heed::ops {

HWY_EXPORT(FirstAboveImpl);

size_t FirstAbove(const float* x, size_t n, float t) {
  return HWY_DYNAMIC_DISPATCH(FirstAboveImpl)(x, n, t);
}

}  // namespace heed::ops
#endif  // HWY_ONCE
