// The building blocks every Transformer layer is made of: linear maps,
// LayerNorm and the position-wise feed-forward network.
#ifndef HEED_CORE_MODEL_LAYERS_H_
#define HEED_CORE_MODEL_LAYERS_H_

#include <cstddef>

#include "core/model/config.h"
#include "core/ops/matmul.h"
#include "core/ops/quant.h"

namespace heed {

// y = x·Wᵀ + b, with W in the PyTorch layout (out, in).
struct Linear {
  size_t in = 0;                  // input features
  size_t out = 0;                 // output features
  bool int8 = false;              // which of the two weights is used
  ops::PackedMatrix weight;       // (out, in), packed for ops::MatMul
  ops::PackedInt8Matrix weight8;  // (out, in) int8 with row scales
  const float* bias = nullptr;    // (out) or nullptr

  // y [rows, out] = x [rows, in] · Wᵀ + b.
  void Apply(const float* x, size_t rows, float* y) const;
};

// LayerNorm parameters; both nullptr where the model has no such norm.
struct Norm {
  const float* gamma = nullptr;  // (d_model)
  const float* beta = nullptr;   // (d_model)

  // x [rows, d] normalised in place.
  void Apply(float* x, size_t rows, size_t d, float eps) const;
};

struct FeedForward {
  Linear fc1;  // (d_ff, d_model)
  Linear fc2;  // (d_model, d_ff)

  // y [rows, d_model] = fc2(act(fc1(x))); hidden is scratch [rows, d_ff].
  void Apply(const float* x, size_t rows, Activation act, float* hidden,
             float* y) const;
};

}  // namespace heed

#endif  // HEED_CORE_MODEL_LAYERS_H_
