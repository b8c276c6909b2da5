// What the matrix-multiply benchmarks time: the shapes of a d_model=256
// Transformer (and 512³), and the best of seven runs.
#ifndef HEED_BENCH_MATMUL_SHAPES_H_
#define HEED_BENCH_MATMUL_SHAPES_H_

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <functional>

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

// The fastest of seven runs of f, in seconds: the others met noise.
inline double Seconds(const std::function<void()>& f) {
  double best = 1e30;
  for (int rep = 0; rep < 7; ++rep) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    const auto t1 = std::chrono::steady_clock::now();
    best = std::min(best, std::chrono::duration<double>(t1 - t0).count());
  }
  return best;
}

}  // namespace heed::bench

#endif  // HEED_BENCH_MATMUL_SHAPES_H_
