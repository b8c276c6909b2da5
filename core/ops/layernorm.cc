#include "core/ops/layernorm.h"

#include <cmath>

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "core/ops/layernorm.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep

#include "hwy/highway.h"

#include "core/ops/tail-inl.h"

HWY_BEFORE_NAMESPACE();
namespace heed::ops {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

using DF = hn::ScalableTag<float>;

void LayerNormRow(const float* x, const float* HWY_RESTRICT gamma,
                  const float* HWY_RESTRICT beta, float eps, float* out,
                  size_t n) {
  if (n == 0) return;
  const DF d;
  const size_t lanes = hn::Lanes(d);
  auto sum = hn::Zero(d);
  size_t i = 0;
  for (; i + lanes <= n; i += lanes) sum = hn::Add(sum, hn::LoadU(d, x + i));
  if (i < n) sum = hn::Add(sum, LoadTail(d, x + i, n - i, 0.0f));
  const float mean = hn::GetLane(hn::SumOfLanes(d, sum)) / n;
  // Two passes: the variance of centred values does not cancel badly.
  const auto vmean = hn::Set(d, mean);
  auto sq = hn::Zero(d);
  for (i = 0; i + lanes <= n; i += lanes) {
    const auto c = hn::Sub(hn::LoadU(d, x + i), vmean);
    sq = hn::MulAdd(c, c, sq);
  }
  if (i < n) {
    const auto c = hn::Sub(LoadTail(d, x + i, n - i, mean), vmean);
    sq = hn::MulAdd(c, c, sq);
  }
  const float var = hn::GetLane(hn::SumOfLanes(d, sq)) / n;
  const auto rstd = hn::Set(d, 1.0f / std::sqrt(var + eps));
  for (i = 0; i + lanes <= n; i += lanes) {
    const auto c = hn::Mul(hn::Sub(hn::LoadU(d, x + i), vmean), rstd);
    const auto y =
        hn::MulAdd(c, hn::LoadU(d, gamma + i), hn::LoadU(d, beta + i));
    hn::StoreU(y, d, out + i);
  }
  if (i < n) {
    const size_t r = n - i;
    const auto c = hn::Mul(hn::Sub(LoadTail(d, x + i, r, 0.0f), vmean), rstd);
    const auto y = hn::MulAdd(c, LoadTail(d, gamma + i, r, 0.0f),
                              LoadTail(d, beta + i, r, 0.0f));
    StoreTail(y, d, out + i, r);
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace heed::ops
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace heed::ops {

HWY_EXPORT(LayerNormRow);

void LayerNorm(const float* x, const float* gamma, const float* beta, float eps,
               float* out, size_t n) {
  HWY_DYNAMIC_DISPATCH(LayerNormRow)(x, gamma, beta, eps, out, n);
}

}  // namespace heed::ops
#endif  // HWY_ONCE
