#include "core/model/attention.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "core/explain/alti.h"
#include "core/ops/elementwise.h"
#include "core/ops/softmax.h"

namespace heed {
namespace {

constexpr float kNegInf = -std::numeric_limits<float>::infinity();

// Where row j of keys or values starts: offsets[j] floats in, or j rows
// of `stride` when there are no offsets.
size_t At(const size_t* offsets, size_t stride, size_t j) {
  return offsets != nullptr ? offsets[j] : j * stride;
}

// scores [keys] = (q_h · k_h,j) / √d_k for one head.
void Scores(const float* q, const float* k, size_t stride, size_t keys,
            size_t head_dim, float* scores) {
  const float scale = 1.0f / std::sqrt(static_cast<float>(head_dim));
  for (size_t j = 0; j < keys; ++j) {
    scores[j] = ops::Dot(q, k + j * stride, head_dim) * scale;
  }
}

// ctx_h [head_dim] = Σ_j probs[j] · v_h,j.
void WeightedSum(const float* probs, const float* v, size_t stride, size_t keys,
                 size_t head_dim, float* ctx) {
  std::memset(ctx, 0, head_dim * sizeof(float));
  for (size_t j = 0; j < keys; ++j) {
    if (probs[j] != 0.0f) ops::MulAdd(probs[j], v + j * stride, ctx, head_dim);
  }
}

bool HeadOff(const HeadControl& c, size_t h) {
  return c.disabled != nullptr && c.disabled[h] != 0;
}

}  // namespace

void SelfAttention(const float* q, const float* k, const float* v,
                   size_t stride, size_t len, Mask mask,
                   const HeadControl& control, float* ctx, float* scratch) {
  const bool causal = mask == Mask::kCausal;
  float* bias = causal ? scratch : nullptr;  // 0 up to the query, then -inf
  float* scores = causal ? scratch + len : scratch;
  const size_t dh = control.head_dim;
  for (size_t h = 0; h < control.heads; ++h) {
    const size_t col = h * dh;
    for (size_t i = 0; i < len; ++i) {
      for (size_t j = 0; causal && j < len; ++j) {
        bias[j] = j <= i ? 0.0f : kNegInf;
      }
      float* out = ctx + i * stride + col;
      Scores(q + i * stride + col, k + col, stride, len, dh, scores);
      ops::Softmax(scores, bias, len);
      if (control.probs != nullptr) {
        std::memcpy(control.probs + (h * len + i) * len, scores,
                    len * sizeof(float));
      }
      if (HeadOff(control, h)) {
        std::memset(out, 0, dh * sizeof(float));
      } else {
        WeightedSum(scores, v + col, stride, len, dh, out);
      }
    }
  }
}

void AttendQuery(const float* q, const float* k, const float* v, size_t stride,
                 size_t keys, const HeadControl& control, float* ctx,
                 float* scratch, const size_t* offsets) {
  const size_t dh = control.head_dim;
  const size_t H = control.heads;
  const size_t probs_stride =
      control.probs_head_stride != 0 ? control.probs_head_stride : keys;
  const float scale = 1.0f / std::sqrt(static_cast<float>(dh));
  // Key by key, every head at once: each key and value row is read once,
  // front to back (the decoder's cache outgrows the caches on a batch).
  for (size_t j = 0; j < keys; ++j) {
    ops::SliceDots(q, k + At(offsets, stride, j), H, dh, scale, scratch + j,
                   keys);
  }
  for (size_t h = 0; h < H; ++h) {
    float* p = scratch + h * keys;
    ops::Softmax(p, nullptr, keys);
    if (control.probs != nullptr) {
      std::memcpy(control.probs + h * probs_stride, p, keys * sizeof(float));
    }
    if (HeadOff(control, h)) std::fill(p, p + keys, 0.0f);  // adds nothing
  }
  std::memset(ctx, 0, H * dh * sizeof(float));
  for (size_t j = 0; j < keys; ++j) {
    ops::SliceMulAdds(scratch + j, keys, v + At(offsets, stride, j), ctx, H,
                      dh);
  }
}

void HeadOutputs(const AttentionWeights& w, size_t heads, const float* v,
                 size_t n, float* f, float* scratch) {
  const size_t d = w.out.in;
  const size_t dk = d / heads;
  // Row (h, j) of z holds only head h's slice of v_j; one product gives
  // every head's share at once.
  float* z = scratch;
  std::fill(z, z + heads * n * d, 0.0f);
  for (size_t h = 0; h < heads; ++h) {
    for (size_t j = 0; j < n; ++j) {
      std::copy(v + j * d + h * dk, v + j * d + (h + 1) * dk,
                z + (h * n + j) * d + h * dk);
    }
  }
  w.out.Apply(z, heads * n, f);
  if (w.out.bias == nullptr) return;
  for (size_t r = 0; r < heads * n; ++r) {
    for (size_t c = 0; c < w.out.out; ++c)
      f[r * w.out.out + c] -= w.out.bias[c];
  }
}

static float Norm2(const float* x, size_t n) {
  double sum = 0;
  for (size_t i = 0; i < n; ++i) sum += double(x[i]) * x[i];
  return static_cast<float>(std::sqrt(sum));
}

void CopyHead(const float* x, size_t n, size_t stride, size_t head,
              size_t head_dim, std::vector<float>* out) {
  out->resize(n * head_dim);
  for (size_t i = 0; i < n; ++i) {
    std::copy(x + i * stride + head * head_dim,
              x + i * stride + (head + 1) * head_dim,
              out->data() + i * head_dim);
  }
}

void HeadValueNorms(const AttentionWeights& w, size_t heads, const float* v,
                    size_t n, float* norms, float* scratch) {
  float* f = scratch + heads * n * w.out.in;
  HeadOutputs(w, heads, v, n, f, scratch);
  for (size_t r = 0; r < heads * n; ++r) {
    norms[r] = Norm2(f + r * w.out.out, w.out.out);
  }
}

void LayerContributions(const AttentionWeights& w, size_t heads, const float* v,
                        size_t n, const float* probs, size_t rows,
                        const uint8_t* disabled, float* summed, float* scratch,
                        float* norms) {
  const size_t d = w.out.out;
  float* f = scratch + heads * n * w.out.in;
  HeadOutputs(w, heads, v, n, f, scratch);
  for (size_t r = 0; norms != nullptr && r < heads * n; ++r) {
    norms[r] = Norm2(f + r * d, d);
  }
  std::vector<float> sum(d);
  for (size_t i = 0; i < rows; ++i) {
    for (size_t j = 0; j < n; ++j) {
      std::fill(sum.begin(), sum.end(), 0.0f);
      for (size_t h = 0; h < heads; ++h) {
        const float a = probs[(h * rows + i) * n + j];
        if (a != 0.0f && (disabled == nullptr || disabled[h] == 0)) {
          ops::MulAdd(a, f + (h * n + j) * d, sum.data(), d);
        }
      }
      summed[i * n + j] = Norm2(sum.data(), d);
    }
  }
}

void BlockAlti(const AttentionWeights& w, size_t heads, const float* v,
               size_t n, const float* probs, size_t rows,
               const uint8_t* disabled, const AltiResidual& r, float* c,
               float* scratch) {
  float* f = scratch + heads * n * w.out.in;
  HeadOutputs(w, heads, v, n, f, scratch);
  AltiBlock b;
  b.heads = heads;
  b.rows = rows;
  b.keys = n;
  b.d = w.out.out;
  b.head_outputs = f;
  b.probs = probs;
  b.disabled = disabled;
  b.residual = r.x;
  b.out_bias = w.out.bias;
  if (r.norm != nullptr) {
    b.gamma = r.norm->gamma;
    b.beta = r.norm->beta;
  }
  b.eps = r.eps;
  b.residual_column = r.column;
  b.off = r.off;
  AltiContributions(b, c);
}

}  // namespace heed
