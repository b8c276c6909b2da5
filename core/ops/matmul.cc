#include "core/ops/matmul.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "core/ops/matmul.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep

#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace heed::ops {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

using DF = hn::ScalableTag<float>;

// Rows of A per microkernel call; with two vectors per panel row this keeps
// 12 accumulators, which fit the 16 registers of SSE4/AVX2/SIMD128.
constexpr size_t kRowsPerTile = 6;
// Depth of one pass over a panel: kDepth * panel floats stay in L1.
constexpr size_t kDepth = 256;

size_t PanelWidth() { return 2 * hn::Lanes(DF()); }

// C tile [kRows, panel] += A tile [kRows, depth] · packed panel [depth, panel].
// c has full panel width; the caller handles partial panels.
template <size_t kRows>
HWY_INLINE void Tile(const float* HWY_RESTRICT a, size_t lda,
                     const float* HWY_RESTRICT panel, size_t depth,
                     float* HWY_RESTRICT c, size_t ldc) {
  const DF d;
  const size_t n = hn::Lanes(d);
  hn::Vec<DF> lo[kRows];
  hn::Vec<DF> hi[kRows];
  for (size_t r = 0; r < kRows; ++r) {
    lo[r] = hn::LoadU(d, c + r * ldc);
    hi[r] = hn::LoadU(d, c + r * ldc + n);
  }
  for (size_t kk = 0; kk < depth; ++kk) {
    const auto b0 = hn::Load(d, panel + kk * 2 * n);
    const auto b1 = hn::Load(d, panel + kk * 2 * n + n);
    for (size_t r = 0; r < kRows; ++r) {
      const auto av = hn::Set(d, a[r * lda + kk]);
      lo[r] = hn::MulAdd(av, b0, lo[r]);
      hi[r] = hn::MulAdd(av, b1, hi[r]);
    }
  }
  for (size_t r = 0; r < kRows; ++r) {
    hn::StoreU(lo[r], d, c + r * ldc);
    hn::StoreU(hi[r], d, c + r * ldc + n);
  }
}

// Runs Tile for `rows` (1..kRowsPerTile) rows, through a padded copy of C when
// the panel is partial so that nothing past column n is touched.
HWY_INLINE void TileAnyRows(size_t rows, const float* a, size_t lda,
                            const float* panel, size_t depth, float* c,
                            size_t ldc, size_t cols, size_t width) {
  HWY_ALIGN float scratch[kRowsPerTile * 2 * hn::MaxLanes(DF())];
  float* out = c;
  size_t ldo = ldc;
  if (cols < width) {
    for (size_t r = 0; r < rows; ++r) {
      std::memcpy(scratch + r * width, c + r * ldc, cols * sizeof(float));
      std::fill(scratch + r * width + cols, scratch + (r + 1) * width, 0.0f);
    }
    out = scratch;
    ldo = width;
  }
  switch (rows) {
    case 1:
      Tile<1>(a, lda, panel, depth, out, ldo);
      break;
    case 2:
      Tile<2>(a, lda, panel, depth, out, ldo);
      break;
    case 3:
      Tile<3>(a, lda, panel, depth, out, ldo);
      break;
    case 4:
      Tile<4>(a, lda, panel, depth, out, ldo);
      break;
    case 5:
      Tile<5>(a, lda, panel, depth, out, ldo);
      break;
    default:
      Tile<kRowsPerTile>(a, lda, panel, depth, out, ldo);
      break;
  }
  if (cols < width) {
    for (size_t r = 0; r < rows; ++r) {
      std::memcpy(c + r * ldc, scratch + r * width, cols * sizeof(float));
    }
  }
}

void MatMulPacked(const float* HWY_RESTRICT a, size_t m, size_t lda,
                  const float* HWY_RESTRICT b, size_t n, size_t k,
                  const float* HWY_RESTRICT bias, float* HWY_RESTRICT c,
                  size_t ldc) {
  const size_t width = PanelWidth();
  for (size_t i = 0; i < m; ++i) {
    if (bias != nullptr) {
      std::memcpy(c + i * ldc, bias, n * sizeof(float));
    } else {
      std::fill(c + i * ldc, c + i * ldc + n, 0.0f);
    }
  }
  const size_t panels = (n + width - 1) / width;
  for (size_t k0 = 0; k0 < k; k0 += kDepth) {
    const size_t depth = std::min(kDepth, k - k0);
    for (size_t p = 0; p < panels; ++p) {
      const float* panel = b + (p * k + k0) * width;
      const size_t cols = std::min(width, n - p * width);
      for (size_t i = 0; i < m; i += kRowsPerTile) {
        const size_t rows = std::min(kRowsPerTile, m - i);
        TileAnyRows(rows, a + i * lda + k0, lda, panel, depth,
                    c + i * ldc + p * width, ldc, cols, width);
      }
    }
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace heed::ops
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace heed::ops {

HWY_EXPORT(PanelWidth);
HWY_EXPORT(MatMulPacked);

PackedMatrix PackMatrix(const float* b, size_t n, size_t k, size_t ldb) {
  PackedMatrix packed;
  packed.rows = n;
  packed.cols = k;
  packed.panel = HWY_DYNAMIC_DISPATCH(PanelWidth)();
  const size_t panels = (n + packed.panel - 1) / packed.panel;
  const size_t size = std::max<size_t>(1, panels * k * packed.panel);
  packed.data = hwy::AllocateAligned<float>(size);
  float* out = packed.data.get();
  for (size_t p = 0; p < panels; ++p) {
    for (size_t kk = 0; kk < k; ++kk) {
      for (size_t j = 0; j < packed.panel; ++j) {
        const size_t row = p * packed.panel + j;
        *out++ = row < n ? b[row * ldb + kk] : 0.0f;
      }
    }
  }
  return packed;
}

void MatMul(const float* a, size_t m, size_t lda, const PackedMatrix& b,
            const float* bias, float* c, size_t ldc) {
  if (b.panel != HWY_DYNAMIC_DISPATCH(PanelWidth)()) {
    throw std::invalid_argument("MatMul: matrix was packed with panel width " +
                                std::to_string(b.panel) +
                                " for another SIMD target");
  }
  if (m == 0 || b.rows == 0) return;
  HWY_DYNAMIC_DISPATCH(MatMulPacked)
  (a, m, lda, b.data.get(), b.rows, b.cols, bias, c, ldc);
}

void MatMulTransB(const float* a, size_t m, size_t lda, const float* b,
                  size_t n, size_t k, size_t ldb, const float* bias, float* c,
                  size_t ldc) {
  MatMul(a, m, lda, PackMatrix(b, n, k, ldb), bias, c, ldc);
}

}  // namespace heed::ops
#endif  // HWY_ONCE
