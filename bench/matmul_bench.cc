// heed's f32 matrix multiply against OpenBLAS sgemm, in the same run, at
// 512³ and at the shapes of a d_model=256 Transformer. Prints GFLOP/s and
// the ratio heed / OpenBLAS (both single-threaded, then OpenBLAS on all
// cores). A benchmark, not a test: it asserts nothing.
#include <cblas.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <random>
#include <thread>
#include <vector>

#include "core/ops/matmul.h"

namespace {

double Seconds(const std::function<void()>& f) {
  double best = 1e30;
  for (int rep = 0; rep < 7; ++rep) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    const auto t1 = std::chrono::steady_clock::now();
    best = std::min(best, std::chrono::duration<double>(t1 - t0).count());
  }
  return best;
}

}  // namespace

extern "C" void openblas_set_num_threads(int);

int main() {
  struct Shape {
    const char* what;
    size_t m, n, k;
  };
  const Shape shapes[] = {
      {"square 512", 512, 512, 512},
      {"attention proj, 1 token", 1, 256, 256},
      {"attention proj, 32x20 tokens", 640, 256, 256},
      {"ffn fc1, 32x20 tokens", 640, 1024, 256},
      {"ffn fc2, 32x20 tokens", 640, 256, 1024},
      {"output 8000, 4 beams", 4, 8000, 256},
      {"output 8000, 128 rows", 128, 8000, 256},
  };
  std::mt19937 rng(1);
  std::normal_distribution<float> dist;
  std::printf("%-44s %7s %9s %7s %9s %7s\n", "shape (m x n x k), GFLOP/s",
              "heed", "blas-1t", "ratio", "blas-all", "ratio");
  for (const Shape& s : shapes) {
    std::vector<float> a(s.m * s.k), b(s.n * s.k), c(s.m * s.n);
    for (float& x : a) x = dist(rng);
    for (float& x : b) x = dist(rng);
    const heed::ops::PackedMatrix packed =
        heed::ops::PackMatrix(b.data(), s.n, s.k, s.k);
    const int reps = std::max<int>(1, 2e8 / (2.0 * s.m * s.n * s.k));
    auto heed_run = [&] {
      for (int r = 0; r < reps; ++r) {
        heed::ops::MatMul(a.data(), s.m, s.k, packed, nullptr, c.data(), s.n);
      }
    };
    auto blas_run = [&] {
      for (int r = 0; r < reps; ++r) {
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, s.m, s.n, s.k,
                    1.0f, a.data(), s.k, b.data(), s.k, 0.0f, c.data(), s.n);
      }
    };
    const double flops = 2.0 * s.m * s.n * s.k * reps;
    const double heed_gf = flops / Seconds(heed_run) / 1e9;
    openblas_set_num_threads(1);
    const double blas1 = flops / Seconds(blas_run) / 1e9;
    openblas_set_num_threads(
        static_cast<int>(std::thread::hardware_concurrency()));
    const double blasn = flops / Seconds(blas_run) / 1e9;
    char name[64];
    std::snprintf(name, sizeof(name), "%s (%zux%zux%zu)", s.what, s.m, s.n,
                  s.k);
    std::printf("%-44s %7.1f %9.1f %7.2f %9.1f %7.2f\n", name, heed_gf, blas1,
                heed_gf / blas1, blasn, heed_gf / blasn);
  }
  return 0;
}
