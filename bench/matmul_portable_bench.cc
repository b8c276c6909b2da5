// heed's f32 and int8 matrix multiplies against each other at the shapes of
// bench/matmul_shapes.h, with no BLAS and no intrinsics, so that it builds
// for WebAssembly as well as natively (preset wasm: target
// heed_matmul_portable_bench, run with node). Prints GFLOP/s (int8:
// multiply-adds as two operations, the quantisation of A included) and
// int8 / f32. A benchmark, not a test: it asserts nothing.
#include <cstdio>
#include <random>

#include "bench/matmul_shapes.h"

int main() {
  std::mt19937 rng(1);
  std::printf("%-44s %9s %9s %7s\n", "shape (m x n x k), GFLOP/s", "heed f32",
              "int8", "i8/f32");
  for (const heed::bench::Shape& s : heed::bench::kShapes) {
    heed::bench::Operands ops(s, rng);
    const auto [f32, int8] = ops.Seconds();
    char name[64];
    std::snprintf(name, sizeof(name), "%s (%zux%zux%zu)", s.what, s.m, s.n,
                  s.k);
    std::printf("%-44s %9.1f %9.1f %7.2f\n", name, ops.Flops() / f32 / 1e9,
                ops.Flops() / int8 / 1e9, f32 / int8);
  }
  return 0;
}
