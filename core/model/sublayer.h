// The residual wrapper around every sublayer (attention or feed-forward):
//   post-norm (the paper): x = LayerNorm(x + f(x))
//   pre-norm:              x = x + f(LayerNorm(x))
#ifndef HEED_CORE_MODEL_SUBLAYER_H_
#define HEED_CORE_MODEL_SUBLAYER_H_

#include <cstddef>
#include <cstring>

#include "core/model/layers.h"
#include "core/ops/elementwise.h"

namespace heed {

// x [rows, d] updated in place; in and out are scratch [rows, d]; f(in, out)
// computes the sublayer, and out keeps what it added. A sublayer switched
// off (`off`) still runs, so that what it attended to is seen, but adds
// nothing: out is zeroed.
template <class F>
void Sublayer(const Norm& norm, bool pre_norm, float eps, bool off, float* x,
              size_t rows, size_t d, float* in, float* out, F&& f) {
  if (rows == 0) return;
  std::memcpy(in, x, rows * d * sizeof(float));
  if (pre_norm) norm.Apply(in, rows, d, eps);
  f(in, out);
  if (off) std::memset(out, 0, rows * d * sizeof(float));
  ops::Add(out, x, rows * d);
  if (!pre_norm) norm.Apply(x, rows, d, eps);
}

}  // namespace heed

#endif  // HEED_CORE_MODEL_SUBLAYER_H_
