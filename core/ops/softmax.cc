#include "core/ops/softmax.h"

#include <cmath>
#include <limits>

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "core/ops/softmax.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep

#include "hwy/highway.h"

#include "core/ops/tail-inl.h"
#include "hwy/contrib/math/math-inl.h"

HWY_BEFORE_NAMESPACE();
namespace heed::ops {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

using DF = hn::ScalableTag<float>;
constexpr float kNegInf = -std::numeric_limits<float>::infinity();

float RowMax(const float* x, size_t n) {
  const DF d;
  const size_t lanes = hn::Lanes(d);
  auto m = hn::Set(d, kNegInf);
  size_t i = 0;
  for (; i + lanes <= n; i += lanes) m = hn::Max(m, hn::LoadU(d, x + i));
  if (i < n) m = hn::Max(m, LoadTail(d, x + i, n - i, kNegInf));
  return hn::GetLane(hn::MaxOfLanes(d, m));
}

// e^(v - max), exactly 0 where the difference is below exp's float range
// (so masked entries are exactly 0, not denormals).
HWY_INLINE hn::Vec<DF> ShiftedExp(DF d, hn::Vec<DF> v, hn::Vec<DF> max) {
  const auto diff = hn::Sub(v, max);
  const auto floor = hn::Set(d, -87.0f);
  const auto e = hn::Exp(d, hn::Max(diff, floor));
  return hn::IfThenZeroElse(hn::Lt(diff, floor), e);
}

void SoftmaxRow(float* HWY_RESTRICT x, const float* HWY_RESTRICT mask,
                size_t n) {
  const DF d;
  const size_t lanes = hn::Lanes(d);
  if (mask != nullptr) {
    for (size_t i = 0; i < n; ++i) x[i] += mask[i];
  }
  const float max = RowMax(x, n);
  if (n == 0 || max == kNegInf) {
    for (size_t i = 0; i < n; ++i) x[i] = 0.0f;
    return;
  }
  const auto vmax = hn::Set(d, max);
  auto sum = hn::Zero(d);
  size_t i = 0;
  for (; i + lanes <= n; i += lanes) {
    const auto e = ShiftedExp(d, hn::LoadU(d, x + i), vmax);
    sum = hn::Add(sum, e);
    hn::StoreU(e, d, x + i);
  }
  if (i < n) {
    const auto e = ShiftedExp(d, LoadTail(d, x + i, n - i, kNegInf), vmax);
    sum = hn::Add(sum, e);
    StoreTail(e, d, x + i, n - i);
  }
  const auto inv = hn::Set(d, 1.0f / hn::GetLane(hn::SumOfLanes(d, sum)));
  for (i = 0; i + lanes <= n; i += lanes) {
    hn::StoreU(hn::Mul(hn::LoadU(d, x + i), inv), d, x + i);
  }
  if (i < n) {
    StoreTail(hn::Mul(LoadTail(d, x + i, n - i, 0.0f), inv), d, x + i, n - i);
  }
}

void LogSoftmaxRow(float* HWY_RESTRICT x, size_t n) {
  const DF d;
  const size_t lanes = hn::Lanes(d);
  const float max = RowMax(x, n);
  if (n == 0 || max == kNegInf) return;
  const auto vmax = hn::Set(d, max);
  auto sum = hn::Zero(d);
  size_t i = 0;
  for (; i + lanes <= n; i += lanes) {
    sum = hn::Add(sum, ShiftedExp(d, hn::LoadU(d, x + i), vmax));
  }
  if (i < n) {
    sum = hn::Add(sum, ShiftedExp(d, LoadTail(d, x + i, n - i, kNegInf), vmax));
  }
  const float shift = max + std::log(hn::GetLane(hn::SumOfLanes(d, sum)));
  const auto vshift = hn::Set(d, shift);
  for (i = 0; i + lanes <= n; i += lanes) {
    hn::StoreU(hn::Sub(hn::LoadU(d, x + i), vshift), d, x + i);
  }
  if (i < n) {
    StoreTail(hn::Sub(LoadTail(d, x + i, n - i, 0.0f), vshift), d, x + i,
              n - i);
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace heed::ops
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace heed::ops {

HWY_EXPORT(SoftmaxRow);
HWY_EXPORT(LogSoftmaxRow);

void Softmax(float* x, const float* mask, size_t n) {
  HWY_DYNAMIC_DISPATCH(SoftmaxRow)(x, mask, n);
}

void LogSoftmax(float* x, size_t n) {
  HWY_DYNAMIC_DISPATCH(LogSoftmaxRow)(x, n);
}

}  // namespace heed::ops
#endif  // HWY_ONCE
