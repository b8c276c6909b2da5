// heed's f32 and int8 matrix multiplies against each other at the shapes of
// bench/matmul_shapes.h, with no BLAS and no intrinsics, so that it builds
// for WebAssembly as well as natively (preset wasm: target
// heed_matmul_portable_bench, run with node). Prints GFLOP/s (int8:
// multiply-adds as two operations, the quantisation of A included) and
// int8 / f32. A benchmark, not a test: it asserts nothing.
#include <cstdio>
#include <random>
#include <vector>

#include "bench/matmul_shapes.h"
#include "core/ops/matmul.h"
#include "core/ops/quant.h"

int main() {
  std::mt19937 rng(1);
  std::normal_distribution<float> dist;
  std::printf("%-44s %9s %9s %7s\n", "shape (m x n x k), GFLOP/s", "heed f32",
              "int8", "i8/f32");
  for (const heed::bench::Shape& s : heed::bench::kShapes) {
    std::vector<float> a(s.m * s.k), b(s.n * s.k), c(s.m * s.n);
    for (float& x : a) x = dist(rng);
    for (float& x : b) x = dist(rng);
    const heed::ops::PackedMatrix packed =
        heed::ops::PackMatrix(b.data(), s.n, s.k, s.k);
    std::vector<int8_t> q(s.n * s.k);
    std::vector<float> scales(s.n);
    heed::ops::QuantizeRows(b.data(), s.n, s.k, q.data(), scales.data());
    const heed::ops::PackedInt8Matrix packed8 =
        heed::ops::PackInt8(q.data(), scales.data(), s.n, s.k, s.k);
    const int reps = heed::bench::Repetitions(s);
    const double f32 = heed::bench::Seconds([&] {
      for (int r = 0; r < reps; ++r) {
        heed::ops::MatMul(a.data(), s.m, s.k, packed, nullptr, c.data(), s.n);
      }
    });
    const double int8 = heed::bench::Seconds([&] {
      for (int r = 0; r < reps; ++r) {
        heed::ops::MatMulInt8(a.data(), s.m, s.k, packed8, nullptr, c.data(),
                              s.n);
      }
    });
    const double flops = 2.0 * s.m * s.n * s.k * reps;
    char name[64];
    std::snprintf(name, sizeof(name), "%s (%zux%zux%zu)", s.what, s.m, s.n,
                  s.k);
    std::printf("%-44s %9.1f %9.1f %7.2f\n", name, flops / f32 / 1e9,
                flops / int8 / 1e9, f32 / int8);
  }
  return 0;
}
