// The decoder: incremental steps over a key/value cache (the path decoding
// uses) and the teacher-forced pass over a whole target (scoring, tests).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>

#include "core/error.h"
#include "core/model/attention.h"
#include "core/model/model.h"
#include "core/model/positional.h"
#include "core/model/sublayer.h"
#include "core/ops/softmax.h"

namespace heed {
namespace {

// Scratch of one decoder pass over `rows` positions: each [rows, d] except
// hidden [rows, d_ff]; norms [rows, 4] or null: where to keep the sizes of
// the residual stream entering self- and cross-attention and of what each
// adds (the source/target share of every position).
struct LayerScratch {
  float *in, *out, *q, *k, *v, *ctx, *hidden;
  float* norms = nullptr;
  size_t norms_stride = 4;  // floats from one row's norms to the next
};

// out[r · stride + slot] = ‖x_r‖₂ for x [rows, d].
void RowNorms(const float* x, size_t rows, size_t d, float* out, size_t stride,
              size_t slot) {
  for (size_t r = 0; r < rows; ++r) {
    double sum = 0;
    for (size_t i = 0; i < d; ++i) sum += double(x[r * d + i]) * x[r * d + i];
    out[r * stride + slot] = static_cast<float>(std::sqrt(sum));
  }
}

// One decoder layer over rows positions, x [rows, d] updated in place:
// masked self-attention, cross-attention, feed-forward, each inside its
// residual and LayerNorm. The two callers differ only in where the
// attention reads keys and values, so they pass it in:
//   self(q, k, v, ctx):  q, k, v [rows, d] of these positions → ctx [rows, d]
//   cross(q, ctx):       q [rows, d] over the encoder memory → ctx [rows, d]
template <class Self, class Cross>
void DecoderLayer(const DecoderLayerWeights& layer, const ModelConfig& c,
                  const SublayerMask& off, size_t l, float* x, size_t rows,
                  const LayerScratch& s, Self&& self, Cross&& cross) {
  const size_t d = c.d_model;
  Sublayer(layer.self_attn_norm, c.pre_norm, c.layer_norm_eps,
           off.Off(SublayerKind::kDecoderSelf, l), x, rows, d, s.in, s.out,
           [&](const float* h, float* y) {
             if (s.norms != nullptr) {
               RowNorms(x, rows, d, s.norms, s.norms_stride, 0);
             }
             layer.self_attn.q.Apply(h, rows, s.q);
             layer.self_attn.k.Apply(h, rows, s.k);
             layer.self_attn.v.Apply(h, rows, s.v);
             self(s.q, s.k, s.v, s.ctx);
             layer.self_attn.out.Apply(s.ctx, rows, y);
           });
  if (s.norms != nullptr) RowNorms(s.out, rows, d, s.norms, s.norms_stride, 1);
  Sublayer(layer.cross_attn_norm, c.pre_norm, c.layer_norm_eps,
           off.Off(SublayerKind::kCross, l), x, rows, d, s.in, s.out,
           [&](const float* h, float* y) {
             if (s.norms != nullptr) {
               RowNorms(x, rows, d, s.norms, s.norms_stride, 2);
             }
             layer.cross_attn.q.Apply(h, rows, s.q);
             cross(s.q, s.ctx);
             layer.cross_attn.out.Apply(s.ctx, rows, y);
           });
  if (s.norms != nullptr) RowNorms(s.out, rows, d, s.norms, s.norms_stride, 3);
  Sublayer(layer.ffn_norm, c.pre_norm, c.layer_norm_eps,
           off.Off(SublayerKind::kDecoderFfn, l), x, rows, d, s.in, s.out,
           [&](const float* h, float* y) {
             layer.ffn.Apply(h, rows, c.activation, s.hidden, y);
           });
}

// What a teacher-forced pass keeps of its attention blocks, as run asks
// (ForcedCaptures): the probabilities, each layer's ‖Σ_h‖ map and the
// probed head's queries and keys.
class ForcedKeeper {
 public:
  ForcedKeeper(const ModelConfig& c, const RunOptions& run, size_t T,
               size_t len, ForcedCaptures* kept)
      : c_(c), run_(run), T_(T), len_(len), kept_(kept) {
    const size_t L = c.decoder_layers, H = c.heads;
    attention_ = kept != nullptr && run.capture_attention;
    summed_ = attention_ && run.capture_value_norms;
    alti_ = attention_ && run.capture_alti;
    if (attention_) {
      kept->self_probs.assign(L * H * T * T, 0.0f);
      kept->cross_probs.assign(L * H * T * len, 0.0f);
    }
    if (summed_) {
      kept->self_layer_contributions.resize(L * T * T);
      kept->cross_layer_contributions.resize(L * T * len);
    }
    if (alti_) {
      kept->alti_self.resize(L * T * T);
      kept->alti_cross.resize(L * T * (len + 1));
    }
    if (summed_ || alti_) scratch_.resize(2 * H * std::max(T, len) * c.d_model);
  }

  // Where layer l's probabilities of `kind` go, (heads, T, keys), or null.
  float* Probs(AttentionKind kind, size_t l) {
    if (!attention_) return nullptr;
    return kind == AttentionKind::kDecoder
               ? &kept_->self_probs[l * c_.heads * T_ * T_]
               : &kept_->cross_probs[l * c_.heads * T_ * len_];
  }

  // After layer l's block of `kind` ran with queries q [T, d] over keys k
  // and values v [keys, d], inside the residual connection `r`.
  void Block(AttentionKind kind, size_t l, const AttentionWeights& w,
             const uint8_t* disabled, const float* q, const float* k,
             const float* v, const AltiResidual& r) {
    const bool self = kind == AttentionKind::kDecoder;
    const size_t keys = self ? T_ : len_;
    const size_t d = c_.d_model;
    if (alti_) {
      float* c = self ? &kept_->alti_self[l * T_ * T_]
                      : &kept_->alti_cross[l * T_ * (len_ + 1)];
      BlockAlti(w, c_.heads, v, keys, Probs(kind, l), T_, disabled, r, c,
                scratch_.data());
    }
    if (summed_) {
      auto& maps = self ? kept_->self_layer_contributions
                        : kept_->cross_layer_contributions;
      LayerContributions(w, c_.heads, v, keys, Probs(kind, l), T_, disabled,
                         &maps[l * T_ * keys], scratch_.data());
    }
    const HeadProbe& p = run_.probe;
    if (kept_ != nullptr && p.on && p.kind == kind && p.layer == l) {
      CopyHead(q, T_, d, p.head, c_.head_dim(), &kept_->queries);
      CopyHead(k, keys, d, p.head, c_.head_dim(), &kept_->keys);
    }
  }

 private:
  const ModelConfig& c_;
  const RunOptions& run_;
  size_t T_, len_;
  ForcedCaptures* kept_;
  bool attention_ = false, summed_ = false, alti_ = false;
  std::vector<float> scratch_;
};

}  // namespace

void Model::KeepCache(DecoderState& state, SpareCache* spare) {
  if (spare == nullptr) return;
  spare->keys = std::move(state.self_k);
  spare->values = std::move(state.self_v);
}

DecoderState Model::StartDecoding(const EncoderOutput& enc,
                                  std::vector<size_t> row_sentence,
                                  size_t max_steps, const RunOptions& run,
                                  size_t max_rows, SpareCache* spare) const {
  CheckRunOptions(run);
  const ModelConfig& c = config_;
  const size_t d = c.d_model;
  for (size_t b : row_sentence) {
    if (b >= enc.batch) throw Error("decoder: a row reads no sentence");
  }
  DecoderState s;
  s.source = &enc;
  s.rows = row_sentence.size();
  s.capacity = max_steps;
  s.capture = run.capture_attention;
  s.capture_hidden = run.capture_hidden;
  s.capture_norms = run.capture_sublayer_norms;
  s.sentence = std::move(row_sentence);
  s.max_rows = std::max(max_rows, s.rows);
  const size_t R = s.max_rows;
  const size_t cache = c.decoder_layers * R * max_steps * d;
  if (spare != nullptr) {  // emptied first: a larger resize copies nothing
    s.self_k = std::move(spare->keys);
    s.self_v = std::move(spare->values);
    s.self_k.clear();
    s.self_v.clear();
  }
  s.self_k.resize(cache);
  s.self_v.resize(cache);
  s.cache_row.resize(R * max_steps);
  s.spare_rows.resize(R * max_steps);
  s.offsets.resize(R * max_steps);
  s.log_probs.resize(R * c.target_vocab);
  if (s.capture_hidden) s.hidden_out.resize(R * c.decoder_layers * d);
  if (s.capture_norms) s.sublayer_norms.resize(R * c.decoder_layers * 4);
  s.capture_values = run.capture_value_norms;
  if (s.capture_values) {
    s.value_norms.resize(R * c.decoder_layers * c.heads);
    s.value_scratch.resize(2 * c.heads * R * d + c.heads * R);
  }
  if (s.capture) {
    s.self_probs.resize(R * c.decoder_layers * c.heads * max_steps);
    s.cross_probs.resize(R * c.decoder_layers * c.heads * enc.max_len);
  }
  for (auto* buf : {&s.x, &s.q, &s.k, &s.v, &s.ctx, &s.tmp, &s.out}) {
    buf->resize(R * d);
  }
  s.hidden.resize(R * c.d_ff);
  s.scores.resize(std::max({c.heads * max_steps, c.heads * enc.max_len, d}));
  return s;
}

void Model::Step(DecoderState& s, const int* tokens,
                 const RunOptions& run) const {
  const ModelConfig& c = config_;
  const size_t d = c.d_model;
  const size_t R = s.rows;
  const size_t L = c.decoder_layers;
  const size_t H = c.heads;
  const size_t T = s.capacity;
  const size_t t = s.step;
  const EncoderOutput& enc = *s.source;
  const size_t S = enc.max_len;
  if (t >= T) throw Error("decoder: step beyond the cache capacity");
  const size_t R0 = s.max_rows;

  float* pe = s.scores.data();  // every row is at position t
  TokenPosition(run.positions, c.positions, t, d, pe);
  for (size_t r = 0; r < R; ++r) {
    if (tokens[r] < 0 || static_cast<size_t>(tokens[r]) >= c.target_vocab) {
      throw Error("decoder: token " + std::to_string(tokens[r]) +
                  " outside the target vocabulary");
    }
    EmbedTarget(tokens[r], t, pe, &s.x[r * d]);
  }
  // Each row's new position goes to its own cache row; the older ones stay
  // where they were computed.
  for (size_t r = 0; r < R; ++r) {
    s.cache_row[r * T + t] = static_cast<uint32_t>(r);
    for (size_t j = 0; j <= t; ++j) {
      s.offsets[r * T + j] = (size_t{s.cache_row[r * T + j]} * T + j) * d;
    }
  }
  HeadControl control;
  control.heads = H;
  control.head_dim = c.head_dim();
  LayerScratch scratch{s.tmp.data(), s.out.data(), s.q.data(),     s.k.data(),
                       s.v.data(),   s.ctx.data(), s.hidden.data()};
  scratch.norms_stride = L * 4;
  for (size_t l = 0; l < L; ++l) {
    scratch.norms = s.capture_norms ? &s.sublayer_norms[l * 4] : nullptr;
    float* cache_k = &s.self_k[l * R0 * T * d];
    float* cache_v = &s.self_v[l * R0 * T * d];
    // Each row appends its key and value to its cache, then attends over
    // positions 0..t.
    auto self = [&](const float* q, const float* k, const float* v,
                    float* ctx) {
      control.disabled = run.head_mask.Layer(AttentionKind::kDecoder, l, H);
      control.probs_head_stride = T;
      for (size_t r = 0; r < R; ++r) {
        std::memcpy(cache_k + (r * T + t) * d, &k[r * d], d * sizeof(float));
        std::memcpy(cache_v + (r * T + t) * d, &v[r * d], d * sizeof(float));
        control.probs =
            s.capture ? &s.self_probs[(r * L + l) * H * T] : nullptr;
        AttendQuery(&q[r * d], cache_k, cache_v, d, t + 1, control, &ctx[r * d],
                    s.scores.data(), &s.offsets[r * T]);
      }
      if (s.capture_values) KeepValueNorms(s, l, v);
    };
    auto cross = [&](const float* q, float* ctx) {
      control.disabled = run.head_mask.Layer(AttentionKind::kCross, l, H);
      control.probs_head_stride = S;
      for (size_t r = 0; r < R; ++r) {
        const size_t b = s.sentence[r];
        const size_t off = (l * enc.batch + b) * S * d;
        control.probs =
            s.capture ? &s.cross_probs[(r * L + l) * H * S] : nullptr;
        AttendQuery(&q[r * d], &enc.cross_k[off], &enc.cross_v[off], d,
                    enc.lengths[b], control, &ctx[r * d], s.scores.data());
      }
    };
    DecoderLayer(weights_.decoder[l], c, run.sublayers, l, s.x.data(), R,
                 scratch, self, cross);
    if (s.capture_hidden) {
      for (size_t r = 0; r < R; ++r) {
        std::memcpy(&s.hidden_out[(r * L + l) * d], &s.x[r * d],
                    d * sizeof(float));
      }
    }
  }
  Project(s.x.data(), R, s.log_probs.data());
  ++s.step;
}

void Model::KeepValueNorms(DecoderState& s, size_t layer,
                           const float* v) const {
  const size_t R = s.rows, H = config_.heads, L = config_.decoder_layers;
  float* norms = &s.value_scratch[2 * H * R * config_.d_model];  // (H, R)
  HeadValueNorms(weights_.decoder[layer].self_attn, H, v, R, norms,
                 s.value_scratch.data());
  for (size_t r = 0; r < R; ++r) {
    for (size_t h = 0; h < H; ++h) {
      s.value_norms[(r * L + layer) * H + h] = norms[h * R + r];
    }
  }
}

void Model::CaptureStep(const DecoderState& s, size_t row,
                        StepCapture* out) const {
  if (row >= s.rows) {
    throw Error("decoder: no row " + std::to_string(row) + " to capture");
  }
  const size_t L = config_.decoder_layers, H = config_.heads;
  const size_t d = config_.d_model;
  // Row `row`'s n values of `from`, only where captured (`from` is empty
  // otherwise: not even its address may be taken).
  auto keep = [row](bool on, const auto& from, size_t n,
                    std::vector<float>* to) {
    if (on) to->assign(from.begin() + row * n, from.begin() + (row + 1) * n);
  };
  keep(s.capture_hidden, s.hidden_out, L * d, &out->hidden);
  keep(s.capture_norms, s.sublayer_norms, L * 4, &out->norms);
  keep(s.capture_values, s.value_norms, L * H, &out->values);
  if (!s.capture) return;
  // The probabilities sit in blocks of T (self) and S (cross) per layer and
  // head, of which the first step (len_b) are this step's.
  const size_t S = s.source->max_len, T = s.capacity;
  const size_t len = s.source->lengths[s.sentence[row]];
  out->self.resize(L * H * s.step);
  out->cross.resize(L * H * len);
  for (size_t lh = 0; lh < L * H; ++lh) {
    std::copy_n(&s.self_probs[(row * L * H + lh) * T], s.step,
                &out->self[lh * s.step]);
    std::copy_n(&s.cross_probs[(row * L * H + lh) * S], len,
                &out->cross[lh * len]);
  }
}

void Model::LensLogProbs(const float* x, float* log_probs) const {
  std::vector<float> copy(x, x + config_.d_model);  // Project normalises it
  Project(copy.data(), 1, log_probs);
}

void Model::Project(float* x, size_t rows, float* log_probs) const {
  const ModelConfig& c = config_;
  if (c.pre_norm) {
    weights_.decoder_norm.Apply(x, rows, c.d_model, c.layer_norm_eps);
  }
  weights_.output.Apply(x, rows, log_probs);
  for (size_t r = 0; r < rows; ++r) {
    ops::LogSoftmax(log_probs + r * c.target_vocab, c.target_vocab);
  }
}

void Model::Reorder(DecoderState& s, const std::vector<size_t>& parents) const {
  const size_t T = s.capacity;
  if (parents.size() > s.max_rows) throw Error("reorder: too many rows");
  for (size_t parent : parents) {
    if (parent >= s.rows) throw Error("reorder: no such row");
  }
  // Only the positions' cache rows move: T indices per row, not the
  // layers' keys and values.
  for (size_t i = 0; i < parents.size(); ++i) {
    std::copy_n(&s.cache_row[parents[i] * T], s.step, &s.spare_rows[i * T]);
  }
  s.cache_row.swap(s.spare_rows);
  std::vector<size_t> sentence(parents.size());
  for (size_t i = 0; i < parents.size(); ++i)
    sentence[i] = s.sentence[parents[i]];
  s.sentence = std::move(sentence);
  s.rows = parents.size();
}

std::vector<float> Model::ForcedLogProbs(const EncoderOutput& enc, size_t b,
                                         const std::vector<int>& inputs,
                                         const RunOptions& run,
                                         ForcedCaptures* captures) const {
  CheckRunOptions(run);
  const ModelConfig& c = config_;
  const size_t d = c.d_model;
  const size_t T = inputs.size();
  const size_t H = c.heads;
  if (b >= enc.batch) throw Error("forced decoding: no such sentence");
  const size_t S = enc.max_len;
  const size_t len = enc.lengths[b];
  std::vector<float> x(T * d), in(T * d), q(T * d), k(T * d), v(T * d),
      ctx(T * d), out(T * d), hidden(T * c.d_ff),
      scratch(std::max({2 * T, c.heads * len, d}));
  for (size_t i = 0; i < T; ++i) {
    if (inputs[i] < 0 || static_cast<size_t>(inputs[i]) >= c.target_vocab) {
      throw Error("forced decoding: token " + std::to_string(inputs[i]) +
                  " outside the target vocabulary");
    }
    TokenPosition(run.positions, c.positions, i, d, scratch.data());
    EmbedTarget(inputs[i], i, scratch.data(), &x[i * d]);
  }
  ForcedKeeper keep(c, run, T, len, captures);
  HeadControl control;
  control.heads = H;
  control.head_dim = c.head_dim();
  const LayerScratch layer_scratch{in.data(),    out.data(), q.data(),
                                   k.data(),     v.data(),   ctx.data(),
                                   hidden.data()};
  for (size_t l = 0; l < c.decoder_layers; ++l) {
    const DecoderLayerWeights& layer = weights_.decoder[l];
    // The blocks' residual connections, for ALTI: x is each block's input.
    AltiResidual self_residual, cross_residual;
    self_residual.x = cross_residual.x = x.data();
    self_residual.eps = cross_residual.eps = c.layer_norm_eps;
    if (!c.pre_norm) {
      self_residual.norm = &layer.self_attn_norm;
      cross_residual.norm = &layer.cross_attn_norm;
    }
    cross_residual.column = true;
    self_residual.off = run.sublayers.Off(SublayerKind::kDecoderSelf, l);
    cross_residual.off = run.sublayers.Off(SublayerKind::kCross, l);
    // Every position attends over positions 0..i of the whole target.
    auto self = [&](const float* qs, const float* ks, const float* vs,
                    float* ctxs) {
      control.disabled = run.head_mask.Layer(AttentionKind::kDecoder, l, H);
      control.probs = keep.Probs(AttentionKind::kDecoder, l);
      SelfAttention(qs, ks, vs, d, T, Mask::kCausal, control, ctxs,
                    scratch.data());
      keep.Block(AttentionKind::kDecoder, l, layer.self_attn, control.disabled,
                 qs, ks, vs, self_residual);
    };
    auto cross = [&](const float* qs, float* ctxs) {
      control.disabled = run.head_mask.Layer(AttentionKind::kCross, l, H);
      control.probs_head_stride = T * len;
      const size_t off = (l * enc.batch + b) * S * d;
      float* probs = keep.Probs(AttentionKind::kCross, l);
      for (size_t i = 0; i < T; ++i) {
        control.probs = probs != nullptr ? probs + i * len : nullptr;
        AttendQuery(&qs[i * d], &enc.cross_k[off], &enc.cross_v[off], d, len,
                    control, &ctxs[i * d], scratch.data());
      }
      control.probs_head_stride = 0;
      keep.Block(AttentionKind::kCross, l, layer.cross_attn, control.disabled,
                 qs, &enc.cross_k[off], &enc.cross_v[off], cross_residual);
    };
    DecoderLayer(layer, c, run.sublayers, l, x.data(), T, layer_scratch, self,
                 cross);
  }
  std::vector<float> log_probs(T * c.target_vocab);
  Project(x.data(), T, log_probs.data());
  return log_probs;
}

ForcedCaptures Model::Replay(const EncoderOutput& enc, size_t b,
                             const std::vector<int>& tokens,
                             const RunOptions& run) const {
  ForcedCaptures kept;
  if (tokens.empty()) return kept;
  std::vector<int> inputs = {config_.bos_id};
  inputs.insert(inputs.end(), tokens.begin(), tokens.end() - 1);
  ForcedLogProbs(enc, b, inputs, run, &kept);
  return kept;
}

}  // namespace heed
