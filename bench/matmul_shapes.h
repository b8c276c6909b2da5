// What the matrix-multiply benchmarks time: the shapes of a d_model=256
// Transformer (and 512³), and the best of seven runs.
#ifndef HEED_BENCH_MATMUL_SHAPES_H_
#define HEED_BENCH_MATMUL_SHAPES_H_

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <random>
#include <vector>

#include "core/ops/matmul.h"
#include "core/ops/quant.h"

namespace heed::bench {

struct Shape {
  const char* what;
  size_t m, n, k;  // C (m, n) = A (m, k) · B^T, B (n, k)
};

inline constexpr Shape kShapes[] = {
    {"square 512", 512, 512, 512},
    {"attention proj, 1 token", 1, 256, 256},
    {"attention proj, 32x20 tokens", 640, 256, 256},
    {"ffn fc1, 32x20 tokens", 640, 1024, 256},
    {"ffn fc2, 32x20 tokens", 640, 256, 1024},
    {"output 8000, 4 beams", 4, 8000, 256},
    {"output 8000, 128 rows", 128, 8000, 256},
};

// Repetitions so that one timed run does about 2·10⁸ operations.
inline int Repetitions(const Shape& s) {
  return std::max<int>(1, 2e8 / (2.0 * s.m * s.n * s.k));
}

// The fastest of `runs` runs of f, in seconds: the others met noise.
inline double Seconds(const std::function<void()>& f, int runs = 7) {
  double best = 1e30;
  for (int rep = 0; rep < runs; ++rep) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    const auto t1 = std::chrono::steady_clock::now();
    best = std::min(best, std::chrono::duration<double>(t1 - t0).count());
  }
  return best;
}

// Random A and B of one shape, B packed for the f32 and the int8 multiply,
// and C; the timed runs repeat each multiply Repetitions(shape) times.
struct Operands {
  Operands(const Shape& shape, std::mt19937& rng)
      : s(shape), a(s.m * s.k), b(s.n * s.k), c(s.m * s.n) {
    std::normal_distribution<float> dist;
    for (float& x : a) x = dist(rng);
    for (float& x : b) x = dist(rng);
    packed = ops::PackMatrix(b.data(), s.n, s.k, s.k);
    std::vector<int8_t> q(s.n * s.k);
    std::vector<float> scales(s.n);
    ops::QuantizeRows(b.data(), s.n, s.k, q.data(), scales.data());
    packed8 = ops::PackInt8(q.data(), scales.data(), s.n, s.k, s.k);
  }
  // Operations of one timed run (a multiply-add counts two).
  double Flops() const { return 2.0 * s.m * s.n * s.k * Repetitions(s); }
  // One timed run of each multiply.
  void RunF32() {
    for (int r = 0; r < Repetitions(s); ++r) {
      ops::MatMul(a.data(), s.m, s.k, packed, nullptr, c.data(), s.n);
    }
  }
  void RunInt8() {
    for (int r = 0; r < Repetitions(s); ++r) {
      ops::MatMulInt8(a.data(), s.m, s.k, packed8, nullptr, c.data(), s.n);
    }
  }
  // The two timed in turn, so that both meet the same moments of a noisy
  // machine: the fastest run of each, in seconds.
  struct Times {
    double f32, int8;
  };
  Times Seconds() {
    Times best{1e30, 1e30};
    for (int rep = 0; rep < 9; ++rep) {
      best.f32 = std::min(best.f32, bench::Seconds([&] { RunF32(); }, 1));
      best.int8 = std::min(best.int8, bench::Seconds([&] { RunInt8(); }, 1));
    }
    return best;
  }

  Shape s;
  std::vector<float> a, b, c;  // a (m, k), b (n, k), c (m, n)
  ops::PackedMatrix packed;
  ops::PackedInt8Matrix packed8;
};

}  // namespace heed::bench

#endif  // HEED_BENCH_MATMUL_SHAPES_H_
