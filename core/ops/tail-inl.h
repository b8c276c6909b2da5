// Loads and stores of the last, partial vector of a row, shared by the
// kernels. They go through a stack buffer so nothing past the row's end is
// read or written on any target (SSE4 and WebAssembly lack fault-free masked
// loads).
//
// Included once per SIMD target, from inside HWY_NAMESPACE.
#if defined(HEED_CORE_OPS_TAIL_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef HEED_CORE_OPS_TAIL_INL_H_
#undef HEED_CORE_OPS_TAIL_INL_H_
#else
#define HEED_CORE_OPS_TAIL_INL_H_
#endif

#include <cstddef>
#include <cstring>

#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace heed::ops {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// The first `count` (< Lanes) values at p; the other lanes hold `fill`.
template <class D>
HWY_INLINE hn::Vec<D> LoadTail(D d, const float* p, size_t count, float fill) {
  HWY_ALIGN float buf[hn::MaxLanes(D())];
  for (size_t i = 0; i < hn::Lanes(d); ++i) buf[i] = fill;
  if (count != 0) std::memcpy(buf, p, count * sizeof(float));
  return hn::Load(d, buf);
}

// Stores the first `count` (< Lanes) lanes of v at p.
template <class D>
HWY_INLINE void StoreTail(hn::Vec<D> v, D d, float* p, size_t count) {
  HWY_ALIGN float buf[hn::MaxLanes(D())];
  hn::Store(v, d, buf);
  if (count != 0) std::memcpy(p, buf, count * sizeof(float));
}

}  // namespace HWY_NAMESPACE
}  // namespace heed::ops
HWY_AFTER_NAMESPACE();

#endif  // HEED_CORE_OPS_TAIL_INL_H_
