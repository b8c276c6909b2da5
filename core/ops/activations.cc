#include "core/ops/activations.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "core/ops/activations.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep

#include "hwy/highway.h"

#include "core/ops/tail-inl.h"
#include "hwy/contrib/math/math-inl.h"

HWY_BEFORE_NAMESPACE();
namespace heed::ops {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

using DF = hn::ScalableTag<float>;
using VF = hn::Vec<DF>;

// x[i] <- f(x[i]) for every i, the tail through a padded vector.
template <class F>
HWY_INLINE void Map(float* HWY_RESTRICT x, size_t n, const F& f) {
  const DF d;
  const size_t lanes = hn::Lanes(d);
  size_t i = 0;
  for (; i + lanes <= n; i += lanes)
    hn::StoreU(f(hn::LoadU(d, x + i)), d, x + i);
  if (i < n) StoreTail(f(LoadTail(d, x + i, n - i, 0.0f)), d, x + i, n - i);
}

// erf(x) by Abramowitz & Stegun 7.1.26 (absolute error below 1.5e-7).
HWY_INLINE VF Erf(DF d, VF x) {
  const auto ax = hn::Abs(x);
  const auto t = hn::Div(hn::Set(d, 1.0f), hn::MulAdd(hn::Set(d, 0.3275911f),
                                                      ax, hn::Set(d, 1.0f)));
  auto p = hn::Set(d, 1.061405429f);
  p = hn::MulAdd(p, t, hn::Set(d, -1.453152027f));
  p = hn::MulAdd(p, t, hn::Set(d, 1.421413741f));
  p = hn::MulAdd(p, t, hn::Set(d, -0.284496736f));
  p = hn::MulAdd(p, t, hn::Set(d, 0.254829592f));
  p = hn::Mul(p, t);
  const auto e = hn::Exp(d, hn::Neg(hn::Mul(ax, ax)));
  const auto y = hn::NegMulAdd(p, e, hn::Set(d, 1.0f));
  return hn::CopySign(y, x);
}

void ReluImpl(float* x, size_t n) {
  const DF d;
  Map(x, n, [d](VF v) { return hn::Max(v, hn::Zero(d)); });
}

void GeluImpl(float* x, size_t n) {
  const DF d;
  Map(x, n, [d](VF v) {
    const auto phi =
        hn::MulAdd(Erf(d, hn::Mul(v, hn::Set(d, 0.70710678118654752f))),
                   hn::Set(d, 0.5f), hn::Set(d, 0.5f));
    return hn::Mul(v, phi);
  });
}

void GeluTanhImpl(float* x, size_t n) {
  const DF d;
  Map(x, n, [d](VF v) {
    const auto cube = hn::Mul(hn::Mul(v, v), v);
    const auto inner = hn::Mul(hn::Set(d, 0.7978845608028654f),
                               hn::MulAdd(hn::Set(d, 0.044715f), cube, v));
    const auto half = hn::Mul(v, hn::Set(d, 0.5f));
    return hn::MulAdd(half, hn::Tanh(d, inner), half);
  });
}

void SiluImpl(float* x, size_t n) {
  const DF d;
  Map(x, n, [d](VF v) {
    // Clamped so exp stays finite; for v < -88 the result is ~0 either way.
    const auto e = hn::Exp(d, hn::Min(hn::Neg(v), hn::Set(d, 88.0f)));
    return hn::Div(v, hn::Add(hn::Set(d, 1.0f), e));
  });
}

}  // namespace HWY_NAMESPACE
}  // namespace heed::ops
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace heed::ops {

HWY_EXPORT(ReluImpl);
HWY_EXPORT(GeluImpl);
HWY_EXPORT(GeluTanhImpl);
HWY_EXPORT(SiluImpl);

void Relu(float* x, size_t n) { HWY_DYNAMIC_DISPATCH(ReluImpl)(x, n); }
void Gelu(float* x, size_t n) { HWY_DYNAMIC_DISPATCH(GeluImpl)(x, n); }
void GeluTanh(float* x, size_t n) { HWY_DYNAMIC_DISPATCH(GeluTanhImpl)(x, n); }
void Silu(float* x, size_t n) { HWY_DYNAMIC_DISPATCH(SiluImpl)(x, n); }

}  // namespace heed::ops
#endif  // HWY_ONCE
