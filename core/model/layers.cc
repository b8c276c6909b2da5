#include "core/model/layers.h"

#include "core/ops/activations.h"
#include "core/ops/layernorm.h"

namespace heed {

void Linear::Apply(const float* x, size_t rows, float* y) const {
  if (int8) {
    ops::MatMulInt8(x, rows, in, weight8, bias, y, out);
  } else {
    ops::MatMul(x, rows, in, weight, bias, y, out);
  }
}

void Norm::Apply(float* x, size_t rows, size_t d, float eps) const {
  for (size_t r = 0; r < rows; ++r) {
    ops::LayerNorm(x + r * d, gamma, beta, eps, x + r * d, d);
  }
}

void FeedForward::Apply(const float* x, size_t rows, Activation act,
                        float* hidden, float* y) const {
  fc1.Apply(x, rows, hidden);
  const size_t n = rows * fc1.out;
  switch (act) {
    case Activation::kRelu:
      ops::Relu(hidden, n);
      break;
    case Activation::kGelu:
      ops::Gelu(hidden, n);
      break;
    case Activation::kGeluTanh:
      ops::GeluTanh(hidden, n);
      break;
    case Activation::kSilu:
      ops::Silu(hidden, n);
      break;
  }
  fc2.Apply(hidden, rows, y);
}

}  // namespace heed
