#include "core/explain/alti.h"

#include <algorithm>
#include <cmath>

namespace heed {
namespace {

// z (keys, d): row i's Σ_h α^h_ij f_h(x_j) for every key j.
void HeadSums(const AltiBlock& b, size_t i, double* z) {
  std::fill(z, z + b.keys * b.d, 0.0);
  if (b.off) return;
  for (size_t h = 0; h < b.heads; ++h) {
    if (b.disabled != nullptr && b.disabled[h] != 0) continue;
    for (size_t j = 0; j < b.keys; ++j) {
      const double a = b.probs[(h * b.rows + i) * b.keys + j];
      if (a == 0.0) continue;
      const float* f = b.head_outputs + (h * b.keys + j) * b.d;
      for (size_t k = 0; k < b.d; ++k) z[j * b.d + k] += a * f[k];
    }
  }
}

double Mean(const double* x, size_t n) {
  double sum = 0;
  for (size_t k = 0; k < n; ++k) sum += x[k];
  return sum / static_cast<double>(n);
}

// Normalises a row to sum 1; an all-zero row puts everything on `fallback`.
void Normalise(float* row, size_t n, size_t fallback) {
  double total = 0;
  for (size_t j = 0; j < n; ++j) total += row[j];
  if (total <= 0.0) {
    std::fill(row, row + n, 0.0f);
    row[fallback] = 1.0f;
    return;
  }
  for (size_t j = 0; j < n; ++j) row[j] = static_cast<float>(row[j] / total);
}

}  // namespace

void AltiContributions(const AltiBlock& b, float* c) {
  const size_t d = b.d, n = b.keys;
  const size_t cols = n + (b.residual_column ? 1 : 0);
  const bool post = b.gamma != nullptr;
  std::vector<double> z(n * d), y(d), t(d);
  for (size_t i = 0; i < b.rows; ++i) {
    HeadSums(b, i, z.data());
    const float* x = b.residual + i * d;
    // The LayerNorm's input, and its scale σ_i.
    for (size_t k = 0; k < d; ++k) {
      y[k] = x[k] + (b.out_bias != nullptr && !b.off ? b.out_bias[k] : 0.0);
      for (size_t j = 0; j < n; ++j) y[k] += z[j * d + k];
    }
    double sigma = 1.0;
    if (post) {
      const double mean = Mean(y.data(), d);
      double var = 0;
      for (size_t k = 0; k < d; ++k) var += (y[k] - mean) * (y[k] - mean);
      sigma = std::sqrt(var / static_cast<double>(d) + b.eps);
      for (size_t k = 0; k < d; ++k) {
        y[k] = b.gamma[k] * (y[k] - mean) / sigma + b.beta[k];
      }
    }
    double y1 = 0;
    for (size_t k = 0; k < d; ++k) y1 += std::fabs(y[k]);
    for (size_t j = 0; j < cols; ++j) {
      const bool own = b.residual_column ? j == n : j == i;
      for (size_t k = 0; k < d; ++k) {
        t[k] = (j < n ? z[j * d + k] : 0.0) + (own ? x[k] : 0.0);
      }
      const double mean = post ? Mean(t.data(), d) : 0.0;
      double distance = 0;
      for (size_t k = 0; k < d; ++k) {
        const double tk = post ? b.gamma[k] * (t[k] - mean) / sigma : t[k];
        distance += std::fabs(y[k] - tk);
      }
      c[i * cols + j] = static_cast<float>(std::max(0.0, y1 - distance));
    }
    Normalise(c + i * cols, cols, b.residual_column ? n : i);
  }
}

std::vector<float> AltiRollout(const std::vector<float>& layers,
                               size_t n_layers, size_t S) {
  std::vector<float> out(layers.size());
  if (n_layers == 0) return out;
  std::copy_n(layers.begin(), S * S, out.begin());
  for (size_t l = 1; l < n_layers; ++l) {
    const float* c = &layers[l * S * S];
    const float* prev = &out[(l - 1) * S * S];
    float* r = &out[l * S * S];
    for (size_t i = 0; i < S; ++i) {
      for (size_t j = 0; j < S; ++j) {
        double sum = 0;
        for (size_t k = 0; k < S; ++k)
          sum += double(c[i * S + k]) * prev[k * S + j];
        r[i * S + j] = static_cast<float>(sum);
      }
    }
  }
  return out;
}

std::vector<float> AltiPlus(const std::vector<float>& self,
                            const std::vector<float>& cross,
                            const float* encoder_rollout, size_t n_layers,
                            size_t T, size_t S) {
  const size_t W = S + T;  // [source | decoder inputs]
  std::vector<float> out(n_layers * T * W);
  std::vector<float> prev(T * W, 0.0f);
  for (size_t i = 0; i < T; ++i) prev[i * W + S + i] = 1.0f;  // R_0 = [0 | I]
  std::vector<double> row(W);
  for (size_t l = 0; l < n_layers; ++l) {
    const float* cs = &self[l * T * T];
    const float* cx = &cross[l * T * (S + 1)];
    float* r = &out[l * T * W];
    for (size_t i = 0; i < T; ++i) {
      std::fill(row.begin(), row.end(), 0.0);
      // The source part of the cross block, through the encoder.
      for (size_t k = 0; k < S; ++k) {
        const double x = cx[i * (S + 1) + k];
        for (size_t j = 0; j < S && x != 0.0; ++j) {
          row[j] += x * encoder_rollout[k * S + j];
        }
      }
      // The residual share, spread over the prefix as self-attention says.
      const double residual = cx[i * (S + 1) + S];
      for (size_t k = 0; k <= i && k < T; ++k) {
        const double s = residual * cs[i * T + k];
        for (size_t j = 0; j < W && s != 0.0; ++j)
          row[j] += s * prev[k * W + j];
      }
      double total = 0;
      for (double v : row) total += v;
      for (size_t j = 0; j < W; ++j) {
        r[i * W + j] = static_cast<float>(total > 0 ? row[j] / total : 0.0);
      }
    }
    std::copy_n(r, T * W, prev.begin());
  }
  return out;
}

}  // namespace heed
