// Model::Encode: the encoder stack over a batch of sources (their tokens
// packed, no padding), then the cross-attention keys and values every
// decoder layer will read.
#include <algorithm>
#include <string>

#include "core/error.h"
#include "core/model/attention.h"
#include "core/model/model.h"
#include "core/model/positional.h"
#include "core/model/sublayer.h"

namespace heed {
namespace {

// The batch's lengths, after checking every source is non-empty and in the
// vocabulary.
void ReadLengths(const std::vector<std::vector<int>>& sources, size_t vocab,
                 EncoderOutput* enc) {
  enc->batch = sources.size();
  for (size_t b = 0; b < enc->batch; ++b) {
    if (sources[b].empty()) {
      throw Error("encode: source " + std::to_string(b) + " is empty");
    }
    for (int id : sources[b]) {
      if (id < 0 || static_cast<size_t>(id) >= vocab) {
        throw Error("encode: token id " + std::to_string(id) +
                    " is outside the source vocabulary of " +
                    std::to_string(vocab));
      }
    }
    enc->lengths.push_back(sources[b].size());
    enc->max_len = std::max(enc->max_len, sources[b].size());
  }
}

// What Encode keeps of its self-attention blocks, as run asks: each
// sentence's probabilities, value norms, ‖Σ_h‖ maps and the probed head's
// queries and keys (EncoderOutput's fields, sized here).
class EncoderKeeper {
 public:
  EncoderKeeper(const ModelConfig& c, const RunOptions& run, EncoderOutput* enc)
      : c_(c), run_(run), enc_(*enc) {
    const size_t B = enc->batch, L = c.encoder_layers, H = c.heads;
    attention_ = run.capture_attention;
    norms_ = run.capture_value_norms;
    summed_ = attention_ && norms_;
    alti_ = attention_ && run.capture_alti;
    probe_ = run.probe.on && run.probe.kind == AttentionKind::kEncoder;
    if (attention_) enc->attention.resize(B);
    if (summed_) enc->layer_contributions.resize(B);
    if (alti_) enc->alti.resize(B);
    if (norms_) {
      enc->value_norms.resize(B);
      enc->cross_value_norms.resize(B);
    }
    if (norms_ || alti_) scratch_.resize(2 * H * enc->max_len * c.d_model);
    if (probe_) {
      enc->queries.resize(B);
      enc->keys.resize(B);
    }
    for (size_t b = 0; b < B; ++b) {
      const size_t len = enc->lengths[b];
      if (attention_) enc->attention[b].assign(L * H * len * len, 0.0f);
      if (summed_) enc->layer_contributions[b].resize(L * len * len);
      if (alti_) enc->alti[b].resize(L * len * len);
      if (norms_) {
        enc->value_norms[b].resize(L * H * len);
        enc->cross_value_norms[b].resize(c.decoder_layers * H * len);
      }
    }
  }

  // Where sentence b's probabilities of layer l go, (heads, len, len), or
  // null.
  float* Probs(size_t b, size_t l) {
    const size_t len = enc_.lengths[b];
    return attention_ ? &enc_.attention[b][l * c_.heads * len * len] : nullptr;
  }

  // After sentence b's attention in layer l ran on its q, k, v [len, d],
  // inside the residual connection `r` (its x: the sentence's rows).
  void Block(size_t b, size_t l, const AttentionWeights& w,
             const uint8_t* disabled, const float* q, const float* k,
             const float* v, const AltiResidual& r) {
    const size_t len = enc_.lengths[b], H = c_.heads, dh = c_.head_dim();
    if (alti_) {
      BlockAlti(w, H, v, len, Probs(b, l), len, disabled, r,
                &enc_.alti[b][l * len * len], scratch_.data());
    }
    float* norms = norms_ ? &enc_.value_norms[b][l * H * len] : nullptr;
    if (summed_) {  // the value norms from the same head outputs
      LayerContributions(w, H, v, len, Probs(b, l), len, disabled,
                         &enc_.layer_contributions[b][l * len * len],
                         scratch_.data(), norms);
    } else if (norms_) {
      HeadValueNorms(w, H, v, len, norms, scratch_.data());
    }
    if (probe_ && run_.probe.layer == l) {
      CopyHead(q, len, c_.d_model, run_.probe.head, dh, &enc_.queries[b]);
      CopyHead(k, len, c_.d_model, run_.probe.head, dh, &enc_.keys[b]);
    }
  }

  // HeadValueNorms' scratch, for the cross-attention value norms.
  float* scratch() { return scratch_.data(); }

 private:
  const ModelConfig& c_;
  const RunOptions& run_;
  EncoderOutput& enc_;
  bool attention_ = false, norms_ = false, summed_ = false, alti_ = false,
       probe_ = false;
  std::vector<float> scratch_;
};

// Where each sentence's first token lies when the batch's tokens are packed
// one sentence after another: (B + 1), the last entry the packed row count.
std::vector<size_t> PackedStarts(const EncoderOutput& enc) {
  std::vector<size_t> first(enc.batch + 1, 0);
  for (size_t b = 0; b < enc.batch; ++b) {
    first[b + 1] = first[b] + enc.lengths[b];
  }
  return first;
}

// Packed rows copied into padded (B, S, width); the rows past each length
// are left as they were.
void Unpack(const float* packed, const EncoderOutput& enc, float* padded,
            size_t width) {
  const std::vector<size_t> first = PackedStarts(enc);
  for (size_t b = 0; b < enc.batch; ++b) {
    std::copy(packed + first[b] * width, packed + first[b + 1] * width,
              padded + b * enc.max_len * width);
  }
}

}  // namespace

void Model::ProjectCross(const std::vector<float>& packed, EncoderOutput& enc,
                         const RunOptions& run, float* scratch) const {
  const ModelConfig& c = config_;
  const size_t d = c.d_model, S = enc.max_len, B = enc.batch;
  const std::vector<size_t> first = PackedStarts(enc);
  const size_t rows = first[B];
  std::vector<float> k(rows * d), v(rows * d);
  enc.cross_k.assign(c.decoder_layers * B * S * d, 0.0f);
  enc.cross_v.assign(c.decoder_layers * B * S * d, 0.0f);
  for (size_t l = 0; l < c.decoder_layers; ++l) {
    const AttentionWeights& cross = weights_.decoder[l].cross_attn;
    cross.k.Apply(packed.data(), rows, k.data());
    cross.v.Apply(packed.data(), rows, v.data());
    Unpack(k.data(), enc, &enc.cross_k[l * B * S * d], d);
    Unpack(v.data(), enc, &enc.cross_v[l * B * S * d], d);
    for (size_t b = 0; b < B && run.capture_value_norms; ++b) {
      const size_t len = enc.lengths[b];
      HeadValueNorms(cross, c.heads, &v[first[b] * d], len,
                     &enc.cross_value_norms[b][l * c.heads * len], scratch);
    }
  }
}

void Model::EmbedSources(const std::vector<std::vector<int>>& sources,
                         const EncoderOutput& enc,
                         const std::vector<size_t>& first, Positions positions,
                         float* x, float* pe) const {
  const size_t d = config_.d_model;
  const float* table = weights_.source_embedding;
  if (positions == Positions::kShuffled) {
    for (size_t b = 0; b < enc.batch; ++b) {
      const std::vector<size_t> at = ShuffledPositions(enc.lengths[b]);
      for (size_t s = 0; s < enc.lengths[b]; ++s) {
        PositionalEncoding(at[s], d, config_.positions, pe);
        Embed(table, sources[b][s], pe, &x[(first[b] + s) * d]);
      }
    }
    return;
  }
  for (size_t s = 0; s < enc.max_len; ++s) {
    // Once for the whole batch.
    TokenPosition(positions, config_.positions, s, d, pe);
    for (size_t b = 0; b < enc.batch; ++b) {
      if (s < enc.lengths[b]) {
        Embed(table, sources[b][s], pe, &x[(first[b] + s) * d]);
      }
    }
  }
}

EncoderOutput Model::Encode(const std::vector<std::vector<int>>& sources,
                            const RunOptions& run) const {
  CheckRunOptions(run);
  const ModelConfig& c = config_;
  const size_t d = c.d_model;
  EncoderOutput enc;
  ReadLengths(sources, c.source_vocab, &enc);
  if (enc.batch == 0) return enc;
  // Every layer runs on the sources' tokens packed one sentence after
  // another, so the batch's longest source does not set every sentence's
  // cost; memory and the cross keys and values are laid out padded.
  const size_t S = enc.max_len;
  const std::vector<size_t> first = PackedStarts(enc);
  const size_t rows = first[enc.batch];
  std::vector<float> x(rows * d), in(rows * d), q(rows * d), k(rows * d),
      v(rows * d), ctx(rows * d), out(rows * d), hidden(rows * c.d_ff),
      scratch(std::max(S, d));

  EmbedSources(sources, enc, first, run.positions, x.data(), scratch.data());
  EncoderKeeper keep(c, run, &enc);

  for (size_t l = 0; l < c.encoder_layers; ++l) {
    const EncoderLayerWeights& layer = weights_.encoder[l];
    const SublayerMask& off = run.sublayers;
    AltiResidual residual;
    residual.norm = c.pre_norm ? nullptr : &layer.self_attn_norm;
    residual.eps = c.layer_norm_eps;
    residual.off = off.Off(SublayerKind::kEncoderSelf, l);
    Sublayer(layer.self_attn_norm, c.pre_norm, c.layer_norm_eps, residual.off,
             x.data(), rows, d, in.data(), out.data(),
             [&](const float* h, float* y) {
               layer.self_attn.q.Apply(h, rows, q.data());
               layer.self_attn.k.Apply(h, rows, k.data());
               layer.self_attn.v.Apply(h, rows, v.data());
               for (size_t b = 0; b < enc.batch; ++b) {
                 HeadControl control;
                 control.heads = c.heads;
                 control.head_dim = c.head_dim();
                 control.disabled =
                     run.head_mask.Layer(AttentionKind::kEncoder, l, c.heads);
                 control.probs = keep.Probs(b, l);
                 const size_t at = first[b] * d, len = enc.lengths[b];
                 SelfAttention(&q[at], &k[at], &v[at], d, len, Mask::kNone,
                               control, &ctx[at], scratch.data());
                 residual.x = &x[at];
                 keep.Block(b, l, layer.self_attn, control.disabled, &q[at],
                            &k[at], &v[at], residual);
               }
               layer.self_attn.out.Apply(ctx.data(), rows, y);
             });
    Sublayer(layer.ffn_norm, c.pre_norm, c.layer_norm_eps,
             off.Off(SublayerKind::kEncoderFfn, l), x.data(), rows, d,
             in.data(), out.data(), [&](const float* h, float* y) {
               layer.ffn.Apply(h, rows, c.activation, hidden.data(), y);
             });
  }
  if (c.pre_norm)
    weights_.encoder_norm.Apply(x.data(), rows, d, c.layer_norm_eps);
  enc.memory.assign(enc.batch * S * d, 0.0f);
  Unpack(x.data(), enc, enc.memory.data(), d);

  ProjectCross(x, enc, run, keep.scratch());
  return enc;
}

}  // namespace heed
