#include "core/ops/quant.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "core/ops/quant.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep

#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace heed::ops {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

using DI = hn::ScalableTag<int32_t>;

// With VNNI, A is unsigned: q + 128, corrected by 128 · Σ B[j]. On AVX2
// and on AVX-512 without VNNI (Highway's AVX3: Skylake-SP, Cascade Lake),
// VPMADDUBSW adds pairs of u8 × s8 products into saturating int16, so A
// has 7 bits (q in [-63, 63], + 64) and B is rounded again to 64 levels:
// a pair is at most 2 · 127 · 64 = 16,256, and two pairs (two groups) add
// in int16 without saturating before one VPMADDWD widens them. Elsewhere
// int8 widens to int16.
#define HEED_PAIR_SUMS (HWY_TARGET == HWY_AVX2 || HWY_TARGET == HWY_AVX3)
#if HWY_TARGET == HWY_AVX3_DL
constexpr size_t kGroup = 4;
constexpr int32_t kOffset = 128;
constexpr int32_t kLevels = 127;
constexpr int32_t kWeightLevels = 127;
using AType = uint8_t;
#elif HEED_PAIR_SUMS
constexpr size_t kGroup = 4;
constexpr int32_t kOffset = 64;
constexpr int32_t kLevels = 63;
constexpr int32_t kWeightLevels = 64;
using AType = uint8_t;
#else
constexpr size_t kGroup = 2;
constexpr int32_t kOffset = 0;
constexpr int32_t kLevels = 127;
constexpr int32_t kWeightLevels = 127;
using AType = int16_t;
#endif

// Rows of A per microkernel call: 12 accumulators and 3 more registers fit
// the 16 of SSE4 (and AVX-512's 32 with B for two groups). AVX2 holds B
// for two groups (4 registers), so 8 accumulators. WebAssembly's engines keep
// fewer of its values in registers: 6 rows spill there and ran a batch slower
// than 4 rows.
#if HWY_TARGET == HWY_WASM || HWY_TARGET == HWY_AVX2
constexpr size_t kRowsPerTile = 4;
#else
constexpr size_t kRowsPerTile = 6;
#endif
// k groups per pass over a panel, so that the panel's slice stays in L1.
constexpr size_t kDepthGroups = 512 / kGroup;
// Quantised A lives on the stack, a chunk of at most kChunkRows rows at a
// time.
constexpr size_t kChunkBytes = 16384;
constexpr size_t kChunkRows = 64;

size_t PanelRows() { return 2 * hn::Lanes(DI()); }
size_t GroupSize() { return kGroup; }
int32_t ActivationLevels() { return kLevels; }
int32_t WeightLevels() { return kWeightLevels; }

#if HWY_TARGET == HWY_AVX3_DL
// acc += Σ of 4 products u8(a) · s8(b) per 32-bit lane (VPDPBUSD). Written
// as assembly because Highway 1.0.3 enables AVX-VNNI rather than
// AVX512-VNNI for this target, so the intrinsic does not compile; CPUs it
// dispatches here (Ice Lake, Zen 4 and later) all have the instruction.
HWY_INLINE hn::Vec<DI> DotBytes(hn::Vec<DI> acc, hn::Vec<DI> a,
                                hn::Vec<hn::Repartition<int8_t, DI>> b) {
  __m512i sum = acc.raw;
  asm("vpdpbusd %[b], %[a], %[sum]"
      : [sum] "+v"(sum)
      : [a] "v"(a.raw), [b] "v"(b.raw));
  return hn::Vec<DI>{sum};
}
#elif HEED_PAIR_SUMS
// Highway 1.0.3 has no operation for VPMADDUBSW: the intrinsics of the
// target's width on the vectors' raw registers.
#if HWY_TARGET == HWY_AVX2
using Raw = __m256i;
HWY_INLINE Raw PairSums(Raw a, Raw b) { return _mm256_maddubs_epi16(a, b); }
HWY_INLINE Raw Add16(Raw a, Raw b) { return _mm256_add_epi16(a, b); }
HWY_INLINE Raw Widen(Raw x) {
  return _mm256_madd_epi16(x, _mm256_set1_epi16(1));
}
HWY_INLINE Raw Add32(Raw a, Raw b) { return _mm256_add_epi32(a, b); }
HWY_INLINE Raw Broadcast(const uint8_t* p) {
  return _mm256_broadcastd_epi32(_mm_loadu_si32(p));
}
#else
using Raw = __m512i;
HWY_INLINE Raw PairSums(Raw a, Raw b) { return _mm512_maddubs_epi16(a, b); }
HWY_INLINE Raw Add16(Raw a, Raw b) { return _mm512_add_epi16(a, b); }
HWY_INLINE Raw Widen(Raw x) {
  return _mm512_madd_epi16(x, _mm512_set1_epi16(1));
}
HWY_INLINE Raw Add32(Raw a, Raw b) { return _mm512_add_epi32(a, b); }
HWY_INLINE Raw Broadcast(const uint8_t* p) {
  return _mm512_broadcastd_epi32(_mm_loadu_si32(p));
}
#endif

// acc += Σ of 4 products u8(a) · s8(b) per 32-bit lane: pairs summed in
// int16 (VPMADDUBSW, exact for 7-bit a), then pairs of pairs in int32.
HWY_INLINE hn::Vec<DI> DotBytes(hn::Vec<DI> acc, hn::Vec<DI> a,
                                hn::Vec<hn::Repartition<int8_t, DI>> b) {
  return hn::Vec<DI>{Add32(acc.raw, Widen(PairSums(a.raw, b.raw)))};
}

// Four bytes of A in every 32-bit lane, straight from memory (a load, not
// a move through a general register and a shuffle).
HWY_INLINE hn::Vec<DI> BroadcastWord(const uint8_t* p) {
  return hn::Vec<DI>{Broadcast(p)};
}

// The same for two groups at once: a with b, a2 with b2. Their pair sums
// add in int16 (at most 32,512 with 64-level B), so one VPMADDWD widens
// eight products: three multiplies for 64 multiply-adds where DotBytes
// takes four.
HWY_INLINE hn::Vec<DI> DotBytes2(hn::Vec<DI> acc, hn::Vec<DI> a,
                                 hn::Vec<hn::Repartition<int8_t, DI>> b,
                                 hn::Vec<DI> a2,
                                 hn::Vec<hn::Repartition<int8_t, DI>> b2) {
  const Raw pairs = Add16(PairSums(a.raw, b.raw), PairSums(a2.raw, b2.raw));
  return hn::Vec<DI>{Add32(acc.raw, Widen(pairs))};
}
#endif

// What the rows of a tile scale and add, per column of one panel.
struct PanelOut {
  const float* b_scales = nullptr;  // [cols]
  const int32_t* sums = nullptr;    // [cols] on the first depth block only
  const float* bias = nullptr;      // [cols] or nullptr
  size_t cols = 0;                  // ≤ 2·lanes
};

// c row [cols] = (acc - offset·sums) · a_scale · b_scale + (bias or 0) on
// the first depth block (where sums is set: the offset's contribution over
// all of k is taken away once), and += the scaled acc on the others. C is
// written, not read, on the first block.
HWY_INLINE void AddRow(hn::Vec<DI> lo, hn::Vec<DI> hi, float a_scale,
                       const PanelOut& out, float* c) {
  const DI d;
  const hn::Rebind<float, DI> df;
  const size_t n = hn::Lanes(d);
  const bool first = out.sums != nullptr;
  if (first) {
    const auto off = hn::Set(d, kOffset);
    lo = hn::Sub(lo, hn::Mul(off, hn::LoadU(d, out.sums)));
    hi = hn::Sub(hi, hn::Mul(off, hn::LoadU(d, out.sums + n)));
  }
  const auto sa = hn::Set(df, a_scale);
  const auto v0 =
      hn::Mul(hn::ConvertTo(df, lo), hn::Mul(hn::LoadU(df, out.b_scales), sa));
  const auto v1 = hn::Mul(hn::ConvertTo(df, hi),
                          hn::Mul(hn::LoadU(df, out.b_scales + n), sa));
  const float* base = first ? out.bias : c;
  if (out.cols == 2 * n) {
    const auto b0 = base != nullptr ? hn::LoadU(df, base) : hn::Zero(df);
    const auto b1 = base != nullptr ? hn::LoadU(df, base + n) : hn::Zero(df);
    hn::StoreU(hn::Add(b0, v0), df, c);
    hn::StoreU(hn::Add(b1, v1), df, c + n);
  } else {  // a partial panel: never touch C past column n
    HWY_ALIGN float buf[2 * hn::MaxLanes(hn::Rebind<float, DI>())];
    hn::Store(v0, df, buf);
    hn::Store(v1, df, buf + n);
    for (size_t j = 0; j < out.cols; ++j) {
      c[j] = (base != nullptr ? base[j] : 0.0f) + buf[j];
    }
  }
}

// c tile [kRows, cols] (+)= A tile [kRows, groups·kGroup] · panel slice, the
// integer sums scaled and added as AddRow says. The accumulators stay local so
// they live in registers.
template <size_t kRows>
HWY_INLINE void Tile(const AType* HWY_RESTRICT a, size_t lda,
                     const int8_t* HWY_RESTRICT panel, size_t groups,
                     const float* a_scales, const PanelOut& out, float* c,
                     size_t ldc) {
  const DI d;
  const size_t n = hn::Lanes(d);
  hn::Vec<DI> lo[kRows];
  hn::Vec<DI> hi[kRows];
  for (size_t r = 0; r < kRows; ++r) {
    lo[r] = hn::Zero(d);
    hi[r] = hn::Zero(d);
  }
  size_t g = 0;
#if HEED_PAIR_SUMS
  for (; g + 2 <= groups; g += 2) {
    const hn::Repartition<int8_t, DI> d8;
    const int8_t* bg = panel + g * 2 * n * kGroup;
    const auto b0 = hn::LoadU(d8, bg);
    const auto b1 = hn::LoadU(d8, bg + n * kGroup);
    const auto b2 = hn::LoadU(d8, bg + 2 * n * kGroup);
    const auto b3 = hn::LoadU(d8, bg + 3 * n * kGroup);
    for (size_t r = 0; r < kRows; ++r) {
      const auto av = BroadcastWord(a + r * lda + g * kGroup);
      const auto av2 = BroadcastWord(a + r * lda + (g + 1) * kGroup);
      lo[r] = DotBytes2(lo[r], av, b0, av2, b2);
      hi[r] = DotBytes2(hi[r], av, b1, av2, b3);
    }
  }
#endif
  for (; g < groups; ++g) {
    const int8_t* bg = panel + g * 2 * n * kGroup;
#if HWY_TARGET == HWY_AVX3_DL || HEED_PAIR_SUMS
    const hn::Repartition<int8_t, DI> d8;
    const auto b0 = hn::LoadU(d8, bg);
    const auto b1 = hn::LoadU(d8, bg + n * kGroup);
    for (size_t r = 0; r < kRows; ++r) {
      int32_t word;
      std::memcpy(&word, a + r * lda + g * kGroup, sizeof(word));
      const auto av = hn::Set(d, word);
      lo[r] = DotBytes(lo[r], av, b0);
      hi[r] = DotBytes(hi[r], av, b1);
    }
#elif HWY_TARGET == HWY_SCALAR
    for (size_t r = 0; r < kRows; ++r) {  // one output per vector
      const AType* ar = a + r * lda + g * kGroup;
      lo[r] = hn::Set(d, hn::GetLane(lo[r]) + ar[0] * bg[0] + ar[1] * bg[1]);
      hi[r] = hn::Set(d, hn::GetLane(hi[r]) + ar[0] * bg[2] + ar[1] * bg[3]);
    }
#else
    const hn::Repartition<int16_t, DI> d16;
#if HWY_TARGET == HWY_WASM
    // One v128.load8x8_s each (PromoteTo of LoadU is a load and an
    // extend).
    using V16 = hn::Vec<decltype(d16)>;
    const V16 b0{wasm_i16x8_load8x8(bg)};
    const V16 b1{wasm_i16x8_load8x8(bg + n * kGroup)};
#else
    const hn::Rebind<int8_t, decltype(d16)> d8;
    const auto b0 = hn::PromoteTo(d16, hn::LoadU(d8, bg));
    const auto b1 = hn::PromoteTo(d16, hn::LoadU(d8, bg + n * kGroup));
#endif
    for (size_t r = 0; r < kRows; ++r) {
      int32_t word;
      std::memcpy(&word, a + r * lda + g * kGroup, sizeof(word));
      const auto av = hn::BitCast(d16, hn::Set(d, word));
      auto unused = hn::Zero(d);
      lo[r] = hn::ReorderWidenMulAccumulate(d, av, b0, lo[r], unused);
      hi[r] = hn::ReorderWidenMulAccumulate(d, av, b1, hi[r], unused);
    }
#endif
  }
  for (size_t r = 0; r < kRows; ++r) {
    AddRow(lo[r], hi[r], a_scales[r], out, c + r * ldc);
  }
}

// Quantises a row of A: out[0..depth) in AType, returns the scale. With
// fixed_max > 0 the scale is fixed_max / levels and values beyond it are
// clipped (a calibrated activation range, as Marian's int8shiftAlpha); else
// it is the row's own largest |x| / levels.
HWY_INLINE float QuantizeRow(const float* HWY_RESTRICT x, size_t k,
                             size_t depth, float fixed_max,
                             AType* HWY_RESTRICT out) {
  const hn::ScalableTag<float> df;
  const size_t n = hn::Lanes(df);
  float amax = fixed_max;
  size_t i = 0;
  if (!(fixed_max > 0.0f)) {
    auto vmax = hn::Zero(df);
    for (; i + n <= k; i += n)
      vmax = hn::Max(vmax, hn::Abs(hn::LoadU(df, x + i)));
    amax = hn::GetLane(hn::MaxOfLanes(df, vmax));
    for (; i < k; ++i) amax = std::max(amax, std::abs(x[i]));
  }
  if (!(amax > 0.0f) || !std::isfinite(amax)) {
    // Zero (or non-finite) rows contribute nothing; NaN/inf cannot be
    // represented in int8 and are the caller's to avoid.
    std::fill(out, out + depth, static_cast<AType>(kOffset));
    return 0.0f;
  }
  const float inv = static_cast<float>(kLevels) / amax;
  const hn::Rebind<int32_t, decltype(df)> di;
  const hn::Rebind<AType, decltype(df)> da;
  const auto vinv = hn::Set(df, inv);
  // Clipped as floats: a value far past the range does not overflow int32.
  const auto vhi = hn::Set(df, static_cast<float>(kLevels));
  const auto vlo = hn::Neg(vhi);
  const auto voff = hn::Set(di, kOffset);
  i = 0;
  for (; i + n <= k; i += n) {
    const auto v =
        hn::Min(hn::Max(hn::Mul(hn::LoadU(df, x + i), vinv), vlo), vhi);
    const auto q = hn::Add(hn::NearestInt(v), voff);
    hn::StoreU(hn::DemoteTo(da, q), da, out + i);
  }
  for (; i < k; ++i) {
    const float v = std::clamp(x[i] * inv, -static_cast<float>(kLevels),
                               static_cast<float>(kLevels));
    out[i] =
        static_cast<AType>(static_cast<int32_t>(std::nearbyint(v)) + kOffset);
  }
  std::fill(out + k, out + depth, static_cast<AType>(kOffset));
  return amax / static_cast<float>(kLevels);
}

void MatMulInt8Packed(const float* HWY_RESTRICT a, size_t m, size_t lda,
                      const int8_t* HWY_RESTRICT b, const float* b_scales,
                      const int32_t* sums, size_t n, size_t k, size_t depth,
                      float a_max, const float* HWY_RESTRICT bias,
                      float* HWY_RESTRICT c, size_t ldc) {
  const size_t width = PanelRows();
  const size_t panels = (n + width - 1) / width;
  const size_t groups = depth / kGroup;
  if (groups == 0) {  // k = 0: no depth block writes C
    for (size_t i = 0; i < m; ++i) {
      for (size_t j = 0; j < n; ++j) c[i * ldc + j] = bias ? bias[j] : 0.0f;
    }
    return;
  }
  // Rows of quantised A per chunk; a row longer than the stack buffer
  // (k > 8,192) goes to the heap.
  HWY_ALIGN AType stack[kChunkBytes / sizeof(AType)];
  std::vector<AType> heap;
  AType* qa = stack;
  size_t chunk = kChunkBytes / sizeof(AType) / std::max<size_t>(depth, 1);
  if (chunk == 0) {
    heap.resize(depth);
    qa = heap.data();
    chunk = 1;
  }
  chunk = std::min({chunk, m, kChunkRows});
  float scales[kChunkRows];
  for (size_t i0 = 0; i0 < m; i0 += chunk) {
    const size_t rows = std::min(chunk, m - i0);
    for (size_t r = 0; r < rows; ++r) {
      scales[r] =
          QuantizeRow(a + (i0 + r) * lda, k, depth, a_max, qa + r * depth);
    }
    for (size_t g0 = 0; g0 < groups; g0 += kDepthGroups) {
      const size_t gs = std::min(kDepthGroups, groups - g0);
      for (size_t p = 0; p < panels; ++p) {
        const int8_t* panel = b + (p * groups + g0) * width * kGroup;
        PanelOut out;
        out.cols = std::min(width, n - p * width);
        out.b_scales = b_scales + p * width;
        if (g0 == 0) {
          out.sums = sums + p * width;
          out.bias = bias != nullptr ? bias + p * width : nullptr;
        }
        for (size_t r = 0; r < rows; r += kRowsPerTile) {
          const AType* at = qa + r * depth + g0 * kGroup;
          float* ct = c + (i0 + r) * ldc + p * width;
          switch (std::min(kRowsPerTile, rows - r)) {
            case 1:
              Tile<1>(at, depth, panel, gs, scales + r, out, ct, ldc);
              break;
            case 2:
              Tile<2>(at, depth, panel, gs, scales + r, out, ct, ldc);
              break;
            case 3:
              Tile<3>(at, depth, panel, gs, scales + r, out, ct, ldc);
              break;
            case 4:
              Tile<4>(at, depth, panel, gs, scales + r, out, ct, ldc);
              break;
            case 5:
              Tile<5>(at, depth, panel, gs, scales + r, out, ct, ldc);
              break;
            default:
              Tile<kRowsPerTile>(at, depth, panel, gs, scales + r, out, ct,
                                 ldc);
              break;
          }
        }
      }
    }
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace heed::ops
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace heed::ops {

HWY_EXPORT(PanelRows);
HWY_EXPORT(GroupSize);
HWY_EXPORT(ActivationLevels);
HWY_EXPORT(WeightLevels);
HWY_EXPORT(MatMulInt8Packed);

int32_t Int8ActivationLevels() {
  return HWY_DYNAMIC_DISPATCH(ActivationLevels)();
}

int32_t Int8WeightLevels() { return HWY_DYNAMIC_DISPATCH(WeightLevels)(); }

namespace {

// b in [-127, 127] rounded to `levels` steps each side of zero.
int8_t RoundWeight(int8_t b, int32_t levels) {
  if (levels == 127) return b;
  return static_cast<int8_t>(
      std::nearbyint(static_cast<float>(b) * static_cast<float>(levels) / 127));
}

}  // namespace

void QuantizeRows(const float* x, size_t rows, size_t cols, int8_t* q,
                  float* scales) {
  for (size_t r = 0; r < rows; ++r) {
    const float* row = x + r * cols;
    float amax = 0.0f;
    for (size_t j = 0; j < cols; ++j) amax = std::max(amax, std::abs(row[j]));
    scales[r] = amax / 127.0f;
    for (size_t j = 0; j < cols; ++j) {
      q[r * cols + j] =
          amax > 0.0f ? static_cast<int8_t>(std::lround(row[j] * 127.0f / amax))
                      : 0;
    }
  }
}

PackedInt8Matrix PackInt8(const int8_t* b, const float* scales, size_t n,
                          size_t k, size_t ldb) {
  PackedInt8Matrix p;
  p.rows = n;
  p.cols = k;
  p.panel = HWY_DYNAMIC_DISPATCH(PanelRows)();
  p.group = HWY_DYNAMIC_DISPATCH(GroupSize)();
  p.levels = Int8WeightLevels();
  p.depth = (k + p.group - 1) / p.group * p.group;
  const size_t panels = (n + p.panel - 1) / p.panel;
  const size_t groups = p.depth / p.group;
  p.data = hwy::AllocateAligned<int8_t>(
      std::max<size_t>(1, panels * p.depth * p.panel));
  p.scales.assign(panels * p.panel, 0.0f);
  p.sums.assign(panels * p.panel, 0);
  int8_t* out = p.data.get();
  for (size_t pi = 0; pi < panels; ++pi) {
    for (size_t g = 0; g < groups; ++g) {
      for (size_t j = 0; j < p.panel; ++j) {
        const size_t row = pi * p.panel + j;
        for (size_t e = 0; e < p.group; ++e) {
          const size_t kk = g * p.group + e;
          *out++ = row < n && kk < k ? RoundWeight(b[row * ldb + kk], p.levels)
                                     : int8_t{0};
        }
      }
    }
  }
  const float rescale = 127.0f / static_cast<float>(p.levels);
  for (size_t j = 0; j < n; ++j) {
    p.scales[j] = scales[j] * rescale;
    for (size_t kk = 0; kk < k; ++kk) {
      p.sums[j] += RoundWeight(b[j * ldb + kk], p.levels);
    }
  }
  return p;
}

void MatMulInt8(const float* a, size_t m, size_t lda, const PackedInt8Matrix& b,
                const float* bias, float* c, size_t ldc) {
  if (b.panel != HWY_DYNAMIC_DISPATCH(PanelRows)() ||
      b.group != HWY_DYNAMIC_DISPATCH(GroupSize)() ||
      b.levels != Int8WeightLevels()) {
    throw std::invalid_argument(
        "MatMulInt8: matrix was packed with panel " + std::to_string(b.panel) +
        ", group " + std::to_string(b.group) + " and " +
        std::to_string(b.levels) + " levels for another SIMD target");
  }
  if (m == 0 || b.rows == 0) return;
  HWY_DYNAMIC_DISPATCH(MatMulInt8Packed)
  (a, m, lda, b.data.get(), b.scales.data(), b.sums.data(), b.rows, b.cols,
   b.depth, b.a_max, bias, c, ldc);
}

}  // namespace heed::ops
#endif  // HWY_ONCE
