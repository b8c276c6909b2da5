// heed's f32 and int8 matrix multiplies against OpenBLAS sgemm, in the same
// run, at 512³ and at the shapes of a d_model=256 Transformer. Prints
// GFLOP/s (int8: multiply-adds counted as two operations, including the
// quantisation of A), heed f32 / OpenBLAS (single-threaded, then OpenBLAS on
// all cores), heed int8 / heed f32, and each as a fraction of the core's
// peak, measured first by a loop of independent AVX-512 FMAs (f32) and
// VPDPBUSDs (int8) on registers, or where the CPU lacks them AVX2 FMAs and
// 2 VPMADDUBSW + VPADDW + VPMADDWD + VPADDD. A benchmark, not a test: it
// asserts nothing.
#include <cblas.h>

#include <immintrin.h>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <random>
#include <thread>

#include "bench/matmul_shapes.h"

namespace {

using heed::bench::Seconds;

// Peak GFLOP/s of one core: 12 independent accumulators in registers, so
// throughput and not latency bounds the loop. 0 where the CPU lacks the
// instructions.
#define HEED_TWELVE(OP) \
  OP(0) OP(1) OP(2) OP(3) OP(4) OP(5) OP(6) OP(7) OP(8) OP(9) OP(10) OP(11)

__attribute__((target("avx512f"))) double PeakF32() {
  if (!__builtin_cpu_supports("avx512f")) return 0.0;
#define HEED_DECL(i) __m512 v##i = _mm512_set1_ps(0.001f * (i));
#define HEED_STEP(i) v##i = _mm512_fmadd_ps(x, v##i, y);
#define HEED_SUM(i) sum = _mm512_add_ps(sum, v##i);
  HEED_TWELVE(HEED_DECL)
  __m512 x = _mm512_set1_ps(0.999f), y = _mm512_set1_ps(0.001f);
  asm volatile("" : "+v"(x), "+v"(y));
  const long iters = 20000000;
  double s = 1e30;
  for (int rep = 0; rep < 5; ++rep) {  // the best of five: clocks vary
    const auto t0 = std::chrono::steady_clock::now();
    for (long i = 0; i < iters; ++i) {
      HEED_TWELVE(HEED_STEP)
    }
    s = std::min(
        s, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
               .count());
  }
  __m512 sum = _mm512_setzero_ps();
  HEED_TWELVE(HEED_SUM)
  alignas(64) float lanes[16];
  _mm512_store_ps(lanes, sum);  // keeps the loop's results alive
  volatile float sink = lanes[0];
  (void)sink;
  return 12.0 * 16 * 2 * iters / s / 1e9;
#undef HEED_DECL
#undef HEED_STEP
#undef HEED_SUM
}

__attribute__((target("avx512f,avx512vnni"))) double PeakInt8() {
  if (!__builtin_cpu_supports("avx512vnni")) return 0.0;
#define HEED_DECL(i) __m512i v##i = _mm512_set1_epi32(i);
#define HEED_STEP(i) v##i = _mm512_dpbusd_epi32(v##i, x, y);
#define HEED_SUM(i) sum = _mm512_add_epi32(sum, v##i);
  HEED_TWELVE(HEED_DECL)
  __m512i x = _mm512_set1_epi8(3), y = _mm512_set1_epi8(-2);
  asm volatile("" : "+v"(x), "+v"(y));
  const long iters = 20000000;
  double s = 1e30;
  for (int rep = 0; rep < 5; ++rep) {  // the best of five: clocks vary
    const auto t0 = std::chrono::steady_clock::now();
    for (long i = 0; i < iters; ++i) {
      HEED_TWELVE(HEED_STEP)
    }
    s = std::min(
        s, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
               .count());
  }
  __m512i sum = _mm512_setzero_si512();
  HEED_TWELVE(HEED_SUM)
  alignas(64) int lanes[16];
  _mm512_store_si512(lanes, sum);
  volatile int sink = lanes[0];
  (void)sink;
  return 12.0 * 64 * 2 * iters / s / 1e9;
#undef HEED_DECL
#undef HEED_STEP
#undef HEED_SUM
}
// The same on AVX2: FMAs on 8 lanes; and the int8 products of heed's AVX2
// kernel, u8 × s8 pairs summed to s16 (VPMADDUBSW) for two groups, added
// (VPADDW), pairs of those to s32 (VPMADDWD by ones) and accumulated
// (VPADDD): 64 multiply-adds per five instructions.
__attribute__((target("avx2,fma"))) double PeakF32Avx2() {
  if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma")) {
    return 0.0;
  }
#define HEED_DECL(i) __m256 v##i = _mm256_set1_ps(0.001f * (i));
#define HEED_STEP(i) v##i = _mm256_fmadd_ps(x, v##i, y);
#define HEED_SUM(i) sum = _mm256_add_ps(sum, v##i);
  HEED_TWELVE(HEED_DECL)
  __m256 x = _mm256_set1_ps(0.999f), y = _mm256_set1_ps(0.001f);
  asm volatile("" : "+x"(x), "+x"(y));
  const long iters = 20000000;
  double s = 1e30;
  for (int rep = 0; rep < 5; ++rep) {
    const auto t0 = std::chrono::steady_clock::now();
    for (long i = 0; i < iters; ++i) {
      HEED_TWELVE(HEED_STEP)
    }
    s = std::min(
        s, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
               .count());
  }
  __m256 sum = _mm256_setzero_ps();
  HEED_TWELVE(HEED_SUM)
  alignas(32) float lanes[8];
  _mm256_store_ps(lanes, sum);
  volatile float sink = lanes[0];
  (void)sink;
  return 12.0 * 8 * 2 * iters / s / 1e9;
#undef HEED_DECL
#undef HEED_STEP
#undef HEED_SUM
}

__attribute__((target("avx2"))) double PeakInt8Avx2() {
  if (!__builtin_cpu_supports("avx2")) return 0.0;
#define HEED_DECL(i) __m256i v##i = _mm256_set1_epi32(i);
// Each step reads its own accumulator, so no two steps are the same
// expression (a compiler would compute shared products once).
#define HEED_STEP(i)                                                           \
  v##i = _mm256_add_epi32(                                                     \
      v##i, _mm256_madd_epi16(_mm256_add_epi16(_mm256_maddubs_epi16(v##i, x),  \
                                               _mm256_maddubs_epi16(v##i, y)), \
                              one));
#define HEED_SUM(i) sum = _mm256_add_epi32(sum, v##i);
  HEED_TWELVE(HEED_DECL)
  __m256i x = _mm256_set1_epi8(3), y = _mm256_set1_epi8(-2),
          one = _mm256_set1_epi16(1);
  asm volatile("" : "+x"(x), "+x"(y), "+x"(one));
  const long iters = 20000000;
  double s = 1e30;
  for (int rep = 0; rep < 5; ++rep) {
    const auto t0 = std::chrono::steady_clock::now();
    for (long i = 0; i < iters; ++i) {
      HEED_TWELVE(HEED_STEP)
    }
    s = std::min(
        s, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
               .count());
  }
  __m256i sum = _mm256_setzero_si256();
  HEED_TWELVE(HEED_SUM)
  alignas(32) int lanes[8];
  _mm256_store_si256(reinterpret_cast<__m256i*>(lanes), sum);
  volatile int sink = lanes[0];
  (void)sink;
  return 12.0 * 64 * 2 * iters / s / 1e9;
#undef HEED_DECL
#undef HEED_STEP
#undef HEED_SUM
}
#undef HEED_TWELVE

}  // namespace

extern "C" void openblas_set_num_threads(int);

int main() {
  std::mt19937 rng(1);
  // The widest the CPU has: AVX-512 (VNNI for int8), else AVX2.
  double peak = PeakF32(), peak8 = PeakInt8();
  if (peak == 0.0) peak = PeakF32Avx2();
  if (peak8 == 0.0) peak8 = PeakInt8Avx2();
  std::printf("peak of one core: f32 %.0f GFLOP/s, int8 %.0f GOP/s\n", peak,
              peak8);
  std::printf("%-44s %7s %9s %7s %9s %7s %7s %7s %6s %6s\n",
              "shape (m x n x k), GFLOP/s", "heed", "blas-1t", "ratio",
              "blas-all", "ratio", "int8", "i8/f32", "%peak", "i8%pk");
  for (const heed::bench::Shape& s : heed::bench::kShapes) {
    heed::bench::Operands ops(s, rng);
    auto blas_run = [&] {
      for (int r = 0; r < heed::bench::Repetitions(s); ++r) {
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, s.m, s.n, s.k,
                    1.0f, ops.a.data(), s.k, ops.b.data(), s.k, 0.0f,
                    ops.c.data(), s.n);
      }
    };
    const double flops = ops.Flops();
    const heed::bench::Operands::Times heed_s = ops.Seconds();
    const double heed_gf = flops / heed_s.f32 / 1e9;
    const double int8_gf = flops / heed_s.int8 / 1e9;
    openblas_set_num_threads(1);
    const double blas1 = flops / Seconds(blas_run) / 1e9;
    openblas_set_num_threads(
        static_cast<int>(std::thread::hardware_concurrency()));
    const double blasn = flops / Seconds(blas_run) / 1e9;
    char name[64];
    std::snprintf(name, sizeof(name), "%s (%zux%zux%zu)", s.what, s.m, s.n,
                  s.k);
    std::printf("%-44s %7.1f %9.1f %7.2f %9.1f %7.2f %7.1f %7.2f %6.2f %6.2f\n",
                name, heed_gf, blas1, heed_gf / blas1, blasn, heed_gf / blasn,
                int8_gf, int8_gf / heed_gf, heed_gf / peak, int8_gf / peak8);
  }
  return 0;
}
