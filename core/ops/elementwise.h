// Vector arithmetic: residual adds, scaling, and the dot products and
// weighted sums of attention.
#ifndef HEED_CORE_OPS_ELEMENTWISE_H_
#define HEED_CORE_OPS_ELEMENTWISE_H_

#include <cstddef>

namespace heed::ops {

// y [n] += x [n] (the residual connection).
void Add(const float* x, float* y, size_t n);
// x [n] *= s.
void Scale(float* x, float s, size_t n);
// y [n] += a * x [n].
void MulAdd(float a, const float* x, float* y, size_t n);
// Σ a[i]·b[i] over [n].
float Dot(const float* a, const float* b, size_t n);

// Dot and MulAdd slice by slice, in one call (one dispatch for every
// attention head of a key): a, b, x, y hold `slices` slices of `width`.
// out[s · out_stride] = scale · Dot(a slice s, b slice s).
void SliceDots(const float* a, const float* b, size_t slices, size_t width,
               float scale, float* out, size_t out_stride);
// y slice s += weights[s · weight_stride] · x slice s, skipped where the
// weight is 0.
void SliceMulAdds(const float* weights, size_t weight_stride, const float* x,
                  float* y, size_t slices, size_t width);

}  // namespace heed::ops

#endif  // HEED_CORE_OPS_ELEMENTWISE_H_
