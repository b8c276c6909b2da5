// The int8 kernels against plain scalar references, on every SIMD target.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "core/ops/matmul.h"
#include "core/ops/quant.h"
#include "tests/test_util.h"

namespace heed {
namespace {

std::vector<float> Random(size_t n, std::mt19937& rng, float scale = 1.0f) {
  std::normal_distribution<float> dist(0.0f, scale);
  std::vector<float> v(n);
  for (float& x : v) x = dist(rng);
  return v;
}

TEST_CASE("QuantizeRows rounds each row to 127 steps of its own scale") {
  std::mt19937 rng(11);
  const size_t rows = 5, cols = 37;
  std::vector<float> x = Random(rows * cols, rng, 3.0f);
  std::fill(x.begin() + 2 * cols, x.begin() + 3 * cols, 0.0f);  // a zero row
  std::vector<int8_t> q(rows * cols);
  std::vector<float> s(rows);
  ops::QuantizeRows(x.data(), rows, cols, q.data(), s.data());
  for (size_t r = 0; r < rows; ++r) {
    float amax = 0;
    for (size_t j = 0; j < cols; ++j)
      amax = std::max(amax, std::abs(x[r * cols + j]));
    CHECK(s[r] == doctest::Approx(amax / 127.0f));
    int peak = 0;
    for (size_t j = 0; j < cols; ++j) {
      const int v = q[r * cols + j];
      CHECK(v >= -127);
      CHECK(v <= 127);
      peak = std::max(peak, std::abs(v));
      CHECK(std::abs(v * s[r] - x[r * cols + j]) <= 0.5f * s[r] + 1e-7f);
    }
    CHECK(peak == (amax > 0 ? 127 : 0));
  }
  CHECK(s[2] == 0.0f);
}

// The product the kernel must compute: A quantised per row as the kernel
// does (round to nearest, ties to even; with a_max > 0 on that fixed range,
// clipped), B rounded again to the target's weight levels, integer dot
// products, then scales.
std::vector<double> Reference(const float* a, size_t k, const int8_t* b,
                              size_t ldb, const float* b_scales, size_t n,
                              const float* bias, float a_max = 0.0f) {
  const int32_t wl = ops::Int8WeightLevels();
  const auto weight = [&](size_t j, size_t kk) {
    const int32_t v = b[j * ldb + kk];
    return wl == 127 ? v : static_cast<int32_t>(std::nearbyint(v * wl / 127.0));
  };
  float amax = a_max;
  if (a_max == 0.0f) {
    for (size_t kk = 0; kk < k; ++kk) amax = std::max(amax, std::abs(a[kk]));
  }
  std::vector<int32_t> qa(k, 0);
  const float levels = static_cast<float>(ops::Int8ActivationLevels());
  const float inv = amax > 0 ? levels / amax : 0.0f;
  for (size_t kk = 0; kk < k; ++kk) {
    const int32_t q = static_cast<int32_t>(std::nearbyint(a[kk] * inv));
    qa[kk] = std::clamp(q, -static_cast<int32_t>(levels),
                        static_cast<int32_t>(levels));
  }
  const double sa = amax / levels;
  std::vector<double> out(n);
  for (size_t j = 0; j < n; ++j) {
    int64_t dot = 0;
    for (size_t kk = 0; kk < k; ++kk) dot += qa[kk] * weight(j, kk);
    out[j] =
        (bias ? bias[j] : 0.0) + double(dot) * sa * (b_scales[j] * 127.0 / wl);
  }
  return out;
}

void Int8Case(size_t m, size_t n, size_t k, size_t off, bool bias,
              std::mt19937& rng, float a_max = 0.0f) {
  INFO("m ", m, " n ", n, " k ", k, " offset ", off, " bias ", bias, " a_max ",
       a_max);
  const size_t lda = k + 3, ldb = k + 1, ldc = n + 2;
  std::vector<float> a = Random(off + m * lda, rng);
  std::vector<float> bf = Random(n * ldb, rng, 0.1f);
  std::vector<int8_t> b(off + n * ldb);
  std::vector<float> bs(n);
  ops::QuantizeRows(bf.data(), n, ldb, b.data() + off, bs.data());
  std::vector<float> bv = Random(n, rng);
  std::vector<float> c(off + m * ldc + 1, 7.0f);
  ops::PackedInt8Matrix packed =
      ops::PackInt8(b.data() + off, bs.data(), n, k, ldb);
  packed.a_max = a_max;
  ops::MatMulInt8(a.data() + off, m, lda, packed, bias ? bv.data() : nullptr,
                  c.data() + off, ldc);
  for (size_t i = 0; i < m; ++i) {
    const std::vector<double> want =
        Reference(a.data() + off + i * lda, k, b.data() + off, ldb, bs.data(),
                  n, bias ? bv.data() : nullptr, a_max);
    for (size_t j = 0; j < n; ++j) {
      INFO("row ", i, " column ", j);
      CHECK(std::abs(c[off + i * ldc + j] - want[j]) <=
            1e-4 + 1e-5 * std::abs(want[j]));
    }
    for (size_t j = n; j < ldc && i * ldc + j < m * ldc; ++j) {
      CHECK(c[off + i * ldc + j] == 7.0f);
    }
  }
  CHECK(c.back() == 7.0f);
}

TEST_CASE("int8 matmul matches a scalar reference for any shape") {
  std::mt19937 rng(12);
  test::ForEachTarget([&](const char* target) {
    INFO("target ", std::string(target));
    for (size_t m : {0u, 1u, 2u, 5u, 6u, 7u, 13u}) {
      for (size_t n = 0; n <= 2 * 2 * 16 + 1; n += (n < 8 ? 1 : 7)) {
        for (size_t k : {0u, 1u, 3u, 4u, 8u, 17u}) {
          Int8Case(m, n, k, (m + n + k) % 3, (n + k) % 2 == 0, rng);
        }
      }
    }
    // Past one depth block (512), one stack chunk of rows (64), many panels,
    // and a row too long for the stack buffer.
    Int8Case(9, 70, 1100, 1, true, rng);
    Int8Case(130, 40, 64, 2, true, rng);
    Int8Case(3, 257, 256, 0, false, rng);
    Int8Case(2, 5, 9000, 1, true, rng);
  });
}

TEST_CASE("with a calibrated input range, A is on one scale, clipped to it") {
  std::mt19937 rng(13);
  test::ForEachTarget([&](const char* target) {
    INFO("target ", std::string(target));
    // Random() is in [-1, 1]: 0.4 clips many values, 1.5 none, and every
    // row shares the scale whatever its own largest value.
    for (float a_max : {0.4f, 1.5f}) {
      for (size_t m : {1u, 3u, 7u}) {
        for (size_t n : {1u, 9u, 33u}) {
          for (size_t k : {1u, 17u, 64u}) {
            Int8Case(m, n, k, (m + k) % 3, n % 2 == 1, rng, a_max);
          }
        }
      }
      Int8Case(9, 70, 1100, 1, true, rng, a_max);
    }
  });
}

TEST_CASE("int8 matmul's integer sums do not saturate at the extremes") {
  // Every activation at the top of its range meets weights of ±127: the
  // largest pair sums each target's kernel can form.
  const size_t m = 3, n = 20, k = 72;
  std::vector<float> a(m * k, 1.0f);
  std::fill(a.begin() + k, a.begin() + 2 * k, -1.0f);
  for (size_t kk = 0; kk < k; ++kk) a[2 * k + kk] = kk % 2 ? 2.0f : -2.0f;
  std::vector<int8_t> b(n * k);
  for (size_t j = 0; j < n; ++j) {
    for (size_t kk = 0; kk < k; ++kk) {
      b[j * k + kk] = static_cast<int8_t>((j + kk / 8) % 2 ? 127 : -127);
    }
  }
  std::vector<float> s(n, 0.01f), c(m * n);
  test::ForEachTarget([&](const char* target) {
    INFO("target ", std::string(target));
    ops::MatMulInt8(a.data(), m, k, ops::PackInt8(b.data(), s.data(), n, k, k),
                    nullptr, c.data(), n);
    for (size_t i = 0; i < m; ++i) {
      const std::vector<double> want =
          Reference(a.data() + i * k, k, b.data(), k, s.data(), n, nullptr);
      for (size_t j = 0; j < n; ++j) {
        INFO("row ", i, " column ", j);
        CHECK(c[i * n + j] == doctest::Approx(want[j]).epsilon(1e-5));
      }
    }
  });
}

TEST_CASE("int8 matmul stays close to the float product") {
  std::mt19937 rng(13);
  const size_t m = 8, n = 64, k = 256;
  std::vector<float> a = Random(m * k, rng), b = Random(n * k, rng, 0.05f);
  std::vector<int8_t> q(n * k);
  std::vector<float> s(n), c8(m * n), c32(m * n);
  ops::QuantizeRows(b.data(), n, k, q.data(), s.data());
  ops::MatMulInt8(a.data(), m, k, ops::PackInt8(q.data(), s.data(), n, k, k),
                  nullptr, c8.data(), n);
  ops::MatMulTransB(a.data(), m, k, b.data(), n, k, k, nullptr, c32.data(), n);
  double err = 0, norm = 0;
  for (size_t i = 0; i < m * n; ++i) {
    err += (c8[i] - c32[i]) * (c8[i] - c32[i]);
    norm += c32[i] * c32[i];
  }
  // 8-bit rounding of both operands (7-bit on AVX2: about 0.021 here).
  CHECK(std::sqrt(err / norm) < 0.025);
  // Zero activations give the bias exactly.
  std::vector<float> zeros(k, 0.0f), bias(n, 0.25f), out(n);
  ops::MatMulInt8(zeros.data(), 1, k,
                  ops::PackInt8(q.data(), s.data(), n, k, k), bias.data(),
                  out.data(), n);
  CHECK(
      std::all_of(out.begin(), out.end(), [](float v) { return v == 0.25f; }));
}

TEST_CASE("an int8 matrix packed for one target is refused by another") {
  const auto targets = hwy::SupportedAndGeneratedTargets();
  // 127 steps of 1/127: exact at every target's weight levels.
  std::vector<int8_t> b(8 * 4, 127);
  std::vector<float> s(8, 1.0f / 127), a(4, 1.0f), c(8);
  size_t refused = 0;
  for (int64_t from : targets) {
    hwy::SetSupportedTargetsForTest(from);
    const ops::PackedInt8Matrix packed =
        ops::PackInt8(b.data(), s.data(), 8, 4, 4);
    for (int64_t to : targets) {
      hwy::SetSupportedTargetsForTest(to);
      const ops::PackedInt8Matrix mine =
          ops::PackInt8(b.data(), s.data(), 8, 4, 4);
      if (mine.panel == packed.panel && mine.group == packed.group &&
          mine.levels == packed.levels) {
        ops::MatMulInt8(a.data(), 1, 4, packed, nullptr, c.data(), 8);
        CHECK(c[0] == doctest::Approx(4.0f));
      } else {
        CHECK_THROWS_AS(
            ops::MatMulInt8(a.data(), 1, 4, packed, nullptr, c.data(), 8),
            std::invalid_argument);
        ++refused;
      }
    }
  }
  hwy::SetSupportedTargetsForTest(0);
  MESSAGE(refused, " target pairs with different int8 layouts refused");
}

}  // namespace
}  // namespace heed
