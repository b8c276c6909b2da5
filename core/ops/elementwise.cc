#include "core/ops/elementwise.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "core/ops/elementwise.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep

#include "hwy/highway.h"

#include "core/ops/tail-inl.h"

HWY_BEFORE_NAMESPACE();
namespace heed::ops {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

using DF = hn::ScalableTag<float>;

void AddImpl(const float* HWY_RESTRICT x, float* HWY_RESTRICT y, size_t n) {
  const DF d;
  const size_t lanes = hn::Lanes(d);
  size_t i = 0;
  for (; i + lanes <= n; i += lanes) {
    hn::StoreU(hn::Add(hn::LoadU(d, y + i), hn::LoadU(d, x + i)), d, y + i);
  }
  if (i < n) {
    const size_t r = n - i;
    StoreTail(hn::Add(LoadTail(d, y + i, r, 0.0f), LoadTail(d, x + i, r, 0.0f)),
              d, y + i, r);
  }
}

void ScaleImpl(float* HWY_RESTRICT x, float s, size_t n) {
  const DF d;
  const size_t lanes = hn::Lanes(d);
  const auto vs = hn::Set(d, s);
  size_t i = 0;
  for (; i + lanes <= n; i += lanes) {
    hn::StoreU(hn::Mul(hn::LoadU(d, x + i), vs), d, x + i);
  }
  if (i < n) {
    StoreTail(hn::Mul(LoadTail(d, x + i, n - i, 0.0f), vs), d, x + i, n - i);
  }
}

HWY_INLINE void MulAddImpl(float a, const float* HWY_RESTRICT x,
                           float* HWY_RESTRICT y, size_t n) {
  const DF d;
  const size_t lanes = hn::Lanes(d);
  const auto va = hn::Set(d, a);
  size_t i = 0;
  for (; i + lanes <= n; i += lanes) {
    hn::StoreU(hn::MulAdd(va, hn::LoadU(d, x + i), hn::LoadU(d, y + i)), d,
               y + i);
  }
  if (i < n) {
    const size_t r = n - i;
    StoreTail(hn::MulAdd(va, LoadTail(d, x + i, r, 0.0f),
                         LoadTail(d, y + i, r, 0.0f)),
              d, y + i, r);
  }
}

HWY_INLINE float DotImpl(const float* HWY_RESTRICT a,
                         const float* HWY_RESTRICT b, size_t n) {
  const DF d;
  const size_t lanes = hn::Lanes(d);
  auto sum0 = hn::Zero(d);
  auto sum1 = hn::Zero(d);
  size_t i = 0;
  for (; i + 2 * lanes <= n; i += 2 * lanes) {
    sum0 = hn::MulAdd(hn::LoadU(d, a + i), hn::LoadU(d, b + i), sum0);
    sum1 = hn::MulAdd(hn::LoadU(d, a + i + lanes), hn::LoadU(d, b + i + lanes),
                      sum1);
  }
  for (; i + lanes <= n; i += lanes) {
    sum0 = hn::MulAdd(hn::LoadU(d, a + i), hn::LoadU(d, b + i), sum0);
  }
  if (i < n) {
    const size_t r = n - i;
    sum1 = hn::MulAdd(LoadTail(d, a + i, r, 0.0f), LoadTail(d, b + i, r, 0.0f),
                      sum1);
  }
  return hn::GetLane(hn::SumOfLanes(d, hn::Add(sum0, sum1)));
}

void SliceDotsImpl(const float* HWY_RESTRICT a, const float* HWY_RESTRICT b,
                   size_t slices, size_t width, float scale,
                   float* HWY_RESTRICT out, size_t out_stride) {
  for (size_t s = 0; s < slices; ++s) {
    out[s * out_stride] = DotImpl(a + s * width, b + s * width, width) * scale;
  }
}

void SliceMulAddsImpl(const float* HWY_RESTRICT weights, size_t weight_stride,
                      const float* HWY_RESTRICT x, float* HWY_RESTRICT y,
                      size_t slices, size_t width) {
  for (size_t s = 0; s < slices; ++s) {
    const float w = weights[s * weight_stride];
    if (w != 0.0f) MulAddImpl(w, x + s * width, y + s * width, width);
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace heed::ops
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace heed::ops {

HWY_EXPORT(AddImpl);
HWY_EXPORT(ScaleImpl);
HWY_EXPORT(MulAddImpl);
HWY_EXPORT(DotImpl);
HWY_EXPORT(SliceDotsImpl);
HWY_EXPORT(SliceMulAddsImpl);

void Add(const float* x, float* y, size_t n) {
  HWY_DYNAMIC_DISPATCH(AddImpl)(x, y, n);
}
void Scale(float* x, float s, size_t n) {
  HWY_DYNAMIC_DISPATCH(ScaleImpl)(x, s, n);
}
void MulAdd(float a, const float* x, float* y, size_t n) {
  HWY_DYNAMIC_DISPATCH(MulAddImpl)(a, x, y, n);
}
float Dot(const float* a, const float* b, size_t n) {
  return HWY_DYNAMIC_DISPATCH(DotImpl)(a, b, n);
}
void SliceDots(const float* a, const float* b, size_t slices, size_t width,
               float scale, float* out, size_t out_stride) {
  HWY_DYNAMIC_DISPATCH(SliceDotsImpl)
  (a, b, slices, width, scale, out, out_stride);
}
void SliceMulAdds(const float* weights, size_t weight_stride, const float* x,
                  float* y, size_t slices, size_t width) {
  HWY_DYNAMIC_DISPATCH(SliceMulAddsImpl)
  (weights, weight_stride, x, y, slices, width);
}

}  // namespace heed::ops
#endif  // HWY_ONCE
