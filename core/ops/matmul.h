// Matrix multiply C = A·Bᵀ (+ bias), the product of every linear layer.
//
// B is the weight matrix in the PyTorch layout [out_features, in_features].
// It is packed once into column panels whose width suits the SIMD target, so
// each product streams A rows against a cache-resident panel of B.
#ifndef HEED_CORE_OPS_MATMUL_H_
#define HEED_CORE_OPS_MATMUL_H_

#include <cstddef>

#include "hwy/aligned_allocator.h"

namespace heed::ops {

// B [n, k] rearranged for the microkernel: panel p holds rows
// [p*panel, (p+1)*panel) of B, interleaved by k: data[(p*k + kk)*panel + j] =
// B[p*panel + j, kk]. Rows past n are zero.
struct PackedMatrix {
  size_t rows = 0;   // n: output features (rows of B, columns of C)
  size_t cols = 0;   // k: input features (columns of A and of B)
  size_t panel = 0;  // panel width, chosen by the SIMD target at pack time
  hwy::AlignedFreeUniquePtr<float[]> data;  // (ceil(n / panel), k, panel)
};

// Packs row-major B [n, k] (row stride ldb >= k).
PackedMatrix PackMatrix(const float* b, size_t n, size_t k, size_t ldb);

// C [m, n] = A [m, k] · Bᵀ + bias, with bias [n] or nullptr. Row strides lda
// and ldc. Throws std::invalid_argument if a was packed for another target.
void MatMul(const float* a, size_t m, size_t lda, const PackedMatrix& b,
            const float* bias, float* c, size_t ldc);

// The same product for a B that is used once: packs it, then multiplies.
void MatMulTransB(const float* a, size_t m, size_t lda, const float* b,
                  size_t n, size_t k, size_t ldb, const float* bias, float* c,
                  size_t ldc);

}  // namespace heed::ops

#endif  // HEED_CORE_OPS_MATMUL_H_
