// Layer normalisation over one feature vector.
#ifndef HEED_CORE_OPS_LAYERNORM_H_
#define HEED_CORE_OPS_LAYERNORM_H_

#include <cstddef>

namespace heed::ops {

// out [n] = (x - mean) / sqrt(var + eps) * gamma + beta, with the biased
// variance as in PyTorch. gamma and beta are [n]; out may equal x.
void LayerNorm(const float* x, const float* gamma, const float* beta, float eps,
               float* out, size_t n);

}  // namespace heed::ops

#endif  // HEED_CORE_OPS_LAYERNORM_H_
