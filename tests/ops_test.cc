// Every kernel against a plain scalar reference, on every SIMD target, for
// sizes 0..3·lanes+1 and misaligned pointers.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "core/ops/activations.h"
#include "core/ops/elementwise.h"
#include "core/ops/layernorm.h"
#include "core/ops/matmul.h"
#include "core/ops/scan.h"
#include "core/ops/softmax.h"
#include "tests/test_util.h"

namespace heed {
namespace {

constexpr size_t kMaxLanes = 16;  // AVX-512 floats
constexpr size_t kMaxSize = 3 * kMaxLanes + 1;
constexpr float kInf = std::numeric_limits<float>::infinity();

std::vector<float> Random(size_t n, std::mt19937& rng, float scale = 1.0f) {
  std::normal_distribution<float> dist(0.0f, scale);
  std::vector<float> v(n);
  for (float& x : v) x = dist(rng);
  return v;
}

void CheckClose(const float* got, const std::vector<double>& want, double rel,
                double abs) {
  for (size_t i = 0; i < want.size(); ++i) {
    INFO("index ", i, " got ", got[i], " want ", want[i]);
    CHECK(std::abs(got[i] - want[i]) <= abs + rel * std::abs(want[i]));
  }
}

TEST_CASE("elementwise kernels match scalar references") {
  std::mt19937 rng(1);
  test::ForEachTarget([&](const char* target) {
    INFO("target ", target);
    for (size_t n = 0; n <= kMaxSize; ++n) {
      for (size_t off = 0; off < 4; ++off) {
        INFO("n ", n, " offset ", off);
        std::vector<float> xs = Random(n + off + 1, rng);
        std::vector<float> ys = Random(n + off + 1, rng);
        const float sentinel = ys[off + n];  // one past the end
        float* x = xs.data() + off;
        float* y = ys.data() + off;
        std::vector<double> want(n);

        for (size_t i = 0; i < n; ++i) want[i] = double(y[i]) + x[i];
        ops::Add(x, y, n);
        CheckClose(y, want, 1e-6, 1e-6);

        for (size_t i = 0; i < n; ++i) want[i] = double(y[i]) * 0.37;
        ops::Scale(y, 0.37f, n);
        CheckClose(y, want, 1e-6, 1e-6);

        for (size_t i = 0; i < n; ++i) want[i] = double(y[i]) + -1.5 * x[i];
        ops::MulAdd(-1.5f, x, y, n);
        CheckClose(y, want, 1e-5, 1e-5);

        double dot = 0;
        for (size_t i = 0; i < n; ++i) dot += double(x[i]) * y[i];
        CHECK(std::abs(ops::Dot(x, y, n) - dot) <= 1e-5 + 1e-5 * std::abs(dot));
        CHECK(ys[off + n] == sentinel);  // nothing written past the end
      }
    }
  });
}

TEST_CASE("slice-by-slice dots and weighted adds match scalar references") {
  std::mt19937 rng(3);
  test::ForEachTarget([&](const char* target) {
    INFO("target ", target);
    for (size_t width : {1u, 5u, 8u, 32u, 37u}) {
      for (size_t slices : {1u, 3u, 8u}) {
        INFO("width ", width, " slices ", slices);
        const size_t n = slices * width;
        std::vector<float> a = Random(n + 1, rng), b = Random(n, rng);
        std::vector<float> out(2 * slices, 5.0f);
        ops::SliceDots(a.data() + 1, b.data(), slices, width, 0.5f, out.data(),
                       2);
        for (size_t sl = 0; sl < slices; ++sl) {
          double want = 0;
          for (size_t i = 0; i < width; ++i) {
            want += double(a[1 + sl * width + i]) * b[sl * width + i];
          }
          CHECK(out[2 * sl] == doctest::Approx(0.5 * want).epsilon(1e-5));
          CHECK(out[2 * sl + 1] == 5.0f);  // between the outputs: untouched
        }
        // A zero weight skips its slice: an infinity there stays out.
        std::vector<float> w = Random(3 * slices, rng);
        w[0] = 0.0f;
        std::vector<float> x = Random(n, rng), y = Random(n + 1, rng);
        std::fill(x.begin(), x.begin() + width, kInf);
        std::vector<double> want(y.begin(), y.end());
        for (size_t sl = 1; sl < slices; ++sl) {
          for (size_t i = 0; i < width; ++i) {
            want[sl * width + i] += double(w[3 * sl]) * x[sl * width + i];
          }
        }
        ops::SliceMulAdds(w.data(), 3, x.data(), y.data(), slices, width);
        CheckClose(y.data(), want, 1e-5, 1e-5);
      }
    }
  });
}

TEST_CASE("FirstAbove finds the first value above a threshold") {
  std::mt19937 rng(7);
  test::ForEachTarget([&](const char* target) {
    INFO("target ", target);
    for (size_t n = 0; n <= kMaxSize; ++n) {
      for (size_t off = 0; off < 4; ++off) {
        std::vector<float> xs = Random(n + off, rng);
        float* x = xs.data() + off;
        if (n > 2) x[n / 2] = std::nanf("");  // never above
        for (float t : {-kInf, -1.0f, 0.5f, 2.0f, kInf}) {
          INFO("n ", n, " offset ", off, " threshold ", t);
          size_t want = 0;
          while (want < n && !(x[want] > t)) ++want;
          CHECK(ops::FirstAbove(x, n, t) == want);
        }
        // Only the last value is above: every block below it is skipped.
        if (n > 0) {
          std::fill(x, x + n, -3.0f);
          x[n - 1] = 1.0f;
          CHECK(ops::FirstAbove(x, n, 0.0f) == n - 1);
        }
      }
    }
  });
}

TEST_CASE("activations match scalar references") {
  std::mt19937 rng(2);
  test::ForEachTarget([&](const char* target) {
    INFO("target ", target);
    for (size_t n = 0; n <= kMaxSize; ++n) {
      for (size_t off = 0; off < 3; ++off) {
        INFO("n ", n, " offset ", off);
        std::vector<float> base = Random(n + off, rng, 3.0f);
        if (n > 0) base[off] = -100.0f;  // far tails must stay finite
        if (n > 1) base[off + 1] = 100.0f;
        std::vector<double> want(n);
        auto run = [&](void (*kernel)(float*, size_t), auto ref, double tol) {
          std::vector<float> v = base;
          for (size_t i = 0; i < n; ++i) want[i] = ref(double(v[off + i]));
          kernel(v.data() + off, n);
          CheckClose(v.data() + off, want, tol, tol);
        };
        run(
            ops::Relu, [](double x) { return x > 0 ? x : 0.0; }, 0);
        run(
            ops::Gelu,
            [](double x) {
              return 0.5 * x * (1 + std::erf(x / std::sqrt(2.0)));
            },
            2e-6);
        run(
            ops::GeluTanh,
            [](double x) {
              return 0.5 * x *
                     (1 + std::tanh(std::sqrt(2 / M_PI) *
                                    (x + 0.044715 * x * x * x)));
            },
            2e-6);
        run(
            ops::Silu, [](double x) { return x / (1 + std::exp(-x)); }, 2e-6);
      }
    }
  });
}

std::vector<double> SoftmaxRef(const std::vector<float>& x,
                               const std::vector<float>& mask) {
  std::vector<double> v(x.size());
  double max = -kInf;
  for (size_t i = 0; i < x.size(); ++i) {
    v[i] = double(x[i]) + (mask.empty() ? 0.0 : mask[i]);
    max = std::max(max, v[i]);
  }
  if (max == -kInf) return std::vector<double>(x.size(), 0.0);
  double sum = 0;
  for (double& e : v) sum += (e = std::exp(e - max));
  for (double& e : v) e /= sum;
  return v;
}

TEST_CASE("softmax and log-softmax match scalar references, masks included") {
  std::mt19937 rng(3);
  test::ForEachTarget([&](const char* target) {
    INFO("target ", target);
    for (size_t n = 0; n <= kMaxSize; ++n) {
      for (size_t off = 0; off < 3; ++off) {
        INFO("n ", n, " offset ", off);
        std::vector<float> x = Random(n, rng, 4.0f);
        std::vector<float> mask(n, 0.0f);
        for (size_t i = 0; i < n; ++i) {
          if (i % 3 == 1) mask[i] = -kInf;
        }
        std::vector<float> buf(off + n);
        std::copy(x.begin(), x.end(), buf.begin() + off);
        ops::Softmax(buf.data() + off, mask.data(), n);
        const std::vector<double> want = SoftmaxRef(x, mask);
        CheckClose(buf.data() + off, want, 1e-5, 1e-7);
        for (size_t i = 0; i < n; ++i) {
          if (mask[i] == -kInf && n > 1) CHECK(buf[off + i] == 0.0f);
        }

        std::copy(x.begin(), x.end(), buf.begin() + off);
        ops::LogSoftmax(buf.data() + off, n);
        const std::vector<double> p = SoftmaxRef(x, {});
        std::vector<double> logp(n);
        for (size_t i = 0; i < n; ++i) logp[i] = std::log(p[i]);
        CheckClose(buf.data() + off, logp, 1e-5, 1e-5);
      }
    }
  });
}

TEST_CASE("softmax of a fully masked row is zeros, not NaN") {
  for (size_t n : {1u, 7u, 33u}) {
    std::vector<float> x(n, 1.0f), mask(n, -kInf);
    ops::Softmax(x.data(), mask.data(), n);
    for (float v : x) CHECK(v == 0.0f);
    std::vector<float> y(n, -kInf);
    ops::Softmax(y.data(), nullptr, n);
    for (float v : y) CHECK(v == 0.0f);
  }
}

TEST_CASE("softmax does not overflow on huge scores") {
  std::vector<float> x = {1e30f, 1e30f, -1e30f, 0.0f};
  ops::Softmax(x.data(), nullptr, x.size());
  CHECK(x[0] == doctest::Approx(0.5));
  CHECK(x[1] == doctest::Approx(0.5));
  CHECK(x[2] == 0.0f);
}

TEST_CASE("layernorm matches a scalar reference") {
  std::mt19937 rng(4);
  test::ForEachTarget([&](const char* target) {
    INFO("target ", target);
    for (size_t n = 1; n <= kMaxSize; ++n) {
      for (size_t off = 0; off < 3; ++off) {
        INFO("n ", n, " offset ", off);
        std::vector<float> x = Random(n + off, rng, 2.0f);
        for (size_t i = off; i < n + off; ++i) x[i] += 50.0f;  // big mean
        std::vector<float> g = Random(n, rng), b = Random(n, rng);
        double mean = 0, var = 0;
        for (size_t i = 0; i < n; ++i) mean += x[off + i];
        mean /= n;
        for (size_t i = 0; i < n; ++i) {
          var += (x[off + i] - mean) * (x[off + i] - mean);
        }
        var /= n;
        std::vector<double> want(n);
        for (size_t i = 0; i < n; ++i) {
          want[i] = (x[off + i] - mean) / std::sqrt(var + 1e-5) * g[i] + b[i];
        }
        ops::LayerNorm(x.data() + off, g.data(), b.data(), 1e-5f,
                       x.data() + off, n);
        CheckClose(x.data() + off, want, 1e-4, 1e-4);
      }
    }
  });
}

void MatMulCase(size_t m, size_t n, size_t k, size_t off, bool bias,
                std::mt19937& rng) {
  INFO("m ", m, " n ", n, " k ", k, " offset ", off, " bias ", bias);
  const size_t lda = k + 3, ldb = k + 1, ldc = n + 2;
  std::vector<float> a = Random(off + m * lda, rng);
  std::vector<float> b = Random(off + n * ldb, rng);
  std::vector<float> bv = Random(n, rng);
  std::vector<float> c(off + m * ldc + 1, 7.0f);
  ops::MatMulTransB(a.data() + off, m, lda, b.data() + off, n, k, ldb,
                    bias ? bv.data() : nullptr, c.data() + off, ldc);
  for (size_t i = 0; i < m; ++i) {
    std::vector<double> want(n);
    for (size_t j = 0; j < n; ++j) {
      double s = bias ? bv[j] : 0.0;
      for (size_t kk = 0; kk < k; ++kk) {
        s += double(a[off + i * lda + kk]) * b[off + j * ldb + kk];
      }
      want[j] = s;
    }
    CheckClose(c.data() + off + i * ldc, want, 1e-5, 1e-4);
    // The gap between rows of C is left alone.
    for (size_t j = n; j < ldc && i * ldc + j < m * ldc; ++j) {
      CHECK(c[off + i * ldc + j] == 7.0f);
    }
  }
  CHECK(c.back() == 7.0f);
}

TEST_CASE("matmul matches a scalar reference for any shape") {
  std::mt19937 rng(5);
  test::ForEachTarget([&](const char* target) {
    INFO("target ", target);
    for (size_t m : {0u, 1u, 2u, 5u, 6u, 7u, 13u}) {
      for (size_t n = 0; n <= 2 * 2 * kMaxLanes + 1; n += (n < 8 ? 1 : 7)) {
        for (size_t k : {0u, 1u, 3u, 17u}) {
          MatMulCase(m, n, k, (m + n + k) % 3, (n + k) % 2 == 0, rng);
        }
      }
    }
    // Deep products cross the depth blocking; wide ones many panels.
    MatMulCase(9, 70, 600, 1, true, rng);
    MatMulCase(3, 257, 256, 0, false, rng);
    MatMulCase(64, 64, 64, 2, true, rng);
  });
}

TEST_CASE("a matrix packed for one target is refused by another") {
  const auto targets = hwy::SupportedAndGeneratedTargets();
  if (targets.size() < 2) return;  // nothing to mix up on this CPU
  std::vector<float> b(8 * 4, 1.0f), a(4, 1.0f), c(8);
  hwy::SetSupportedTargetsForTest(targets.front());
  const ops::PackedMatrix packed = ops::PackMatrix(b.data(), 8, 4, 4);
  hwy::SetSupportedTargetsForTest(targets.back());
  const bool same_width =
      packed.panel == ops::PackMatrix(b.data(), 8, 4, 4).panel;
  if (same_width) {
    ops::MatMul(a.data(), 1, 4, packed, nullptr, c.data(), 8);
    CHECK(c[0] == 4.0f);
  } else {
    CHECK_THROWS_AS(ops::MatMul(a.data(), 1, 4, packed, nullptr, c.data(), 8),
                    std::invalid_argument);
  }
  hwy::SetSupportedTargetsForTest(0);
}

}  // namespace
}  // namespace heed
