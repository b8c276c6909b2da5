// 8-bit integer weights: per-row quantisation, and the matrix multiply
// C = A·Bᵀ (+ bias) with B in int8 (one scale per output row) and A
// quantised on the fly, one scale per row (dynamic quantisation).
//
// Each product is exact in 32-bit integers; the only error is rounding A and
// B to 8 bits. With AVX-512 VNNI the inner loop is one instruction for 64
// multiply-adds (u8 × s8, A offset by 128 and corrected with B's row sums);
// on AVX2 five for 64 (u8 × s8 pair sums of two groups into int16, added,
// then widened into int32; the same on AVX-512 without VNNI, for 128),
// with A rounded to 7 bits and B again to 64 levels so that no int16 sum
// saturates; elsewhere (SSE4, WebAssembly SIMD128) int8 widens to int16
// and pairs are multiplied and added into int32.
#ifndef HEED_CORE_OPS_QUANT_H_
#define HEED_CORE_OPS_QUANT_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "hwy/aligned_allocator.h"

namespace heed::ops {

// Symmetric per-row quantisation of x [rows, cols]: scales[r] = max|x[r]| /
// 127 and q[r, c] = round(x[r, c] / scales[r]) in [-127, 127]; an all-zero
// row gets scale 0 and zeros.
void QuantizeRows(const float* x, size_t rows, size_t cols, int8_t* q,
                  float* scales);

// B [n, k] in int8, rearranged for the microkernel: groups of `group`
// consecutive k values of `panel` rows lie together:
// data[((p * depth / group + g) * panel + j) * group + e] = B[p*panel + j,
// g*group + e]. Rows past n and k values past k are zero.
struct PackedInt8Matrix {
  size_t rows = 0;       // n: output features
  size_t cols = 0;       // k: input features
  size_t panel = 0;      // rows of B per panel, chosen by the SIMD target
  size_t group = 0;      // k values per 32-bit lane: 4 (u8 × s8) or 2 (int16)
  size_t depth = 0;      // k rounded up to a multiple of group
  int32_t levels = 127;  // steps each side of zero data holds: 127, or 64
                         // where VPMADDUBSW pairs (B rounded again)
  hwy::AlignedFreeUniquePtr<int8_t[]> data;  // (panels, depth/group, panel,
                                             //  group)
  std::vector<float> scales;  // (panels * panel) B[j] = data * scales[j]
  std::vector<int32_t> sums;  // (panels * panel) Σ_k data[j, k]
  float a_max = 0.0f;  // A's calibrated range: every row's scale is a_max /
                       // levels and values past ±a_max are clipped; 0: each
                       // row's own largest |value| (dynamic)
};

// Packs row-major int8 B [n, k] (row stride ldb >= k) with its row scales.
// Where the target's weight levels are fewer than 127, each value becomes
// round(b · levels / 127) and its row scale grows by 127 / levels.
PackedInt8Matrix PackInt8(const int8_t* b, const float* scales, size_t n,
                          size_t k, size_t ldb);

// The levels each side of zero A is rounded to on this CPU's target: A's
// row scale is max|A| / levels (127; 63 on AVX2).
int32_t Int8ActivationLevels();

// The levels each side of zero packed B holds on this CPU's target: 127, or
// 64 on AVX2 and on AVX-512 without VNNI.
int32_t Int8WeightLevels();

// C [m, n] = A [m, k] · dequant(B)ᵀ + bias, bias [n] or nullptr. A is float
// and quantised per row inside (with b.a_max, on one fixed scale). Throws
// std::invalid_argument if b was packed for another SIMD target.
void MatMulInt8(const float* a, size_t m, size_t lda, const PackedInt8Matrix& b,
                const float* bias, float* c, size_t ldc);

}  // namespace heed::ops

#endif  // HEED_CORE_OPS_QUANT_H_
