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

}  // namespace heed::ops

#endif  // HEED_CORE_OPS_ELEMENTWISE_H_
