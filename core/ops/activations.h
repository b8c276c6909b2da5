// Position-wise activation functions, in place over x [n].
#ifndef HEED_CORE_OPS_ACTIVATIONS_H_
#define HEED_CORE_OPS_ACTIVATIONS_H_

#include <cstddef>

namespace heed::ops {

void Relu(float* x, size_t n);
// GELU with the exact erf form, x·Φ(x) (erf to within 1.5e-7).
void Gelu(float* x, size_t n);
// GELU's tanh approximation (PyTorch's approximate="tanh").
void GeluTanh(float* x, size_t n);
// SiLU (swish), x·sigmoid(x), as in Marian models.
void Silu(float* x, size_t n);

}  // namespace heed::ops

#endif  // HEED_CORE_OPS_ACTIVATIONS_H_
