// Model::Encode: the encoder stack over a padded batch of sources, then the
// cross-attention keys and values every decoder layer will read.
#include <algorithm>
#include <string>

#include "core/error.h"
#include "core/model/attention.h"
#include "core/model/model.h"
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

}  // namespace

void Model::ProjectCross(EncoderOutput& enc, const RunOptions& run,
                         float* scratch) const {
  const ModelConfig& c = config_;
  const size_t d = c.d_model;
  const size_t S = enc.max_len;
  const size_t rows = enc.batch * S;
  enc.cross_k.resize(c.decoder_layers * rows * d);
  enc.cross_v.resize(c.decoder_layers * rows * d);
  for (size_t l = 0; l < c.decoder_layers; ++l) {
    const AttentionWeights& cross = weights_.decoder[l].cross_attn;
    cross.k.Apply(enc.memory.data(), rows, &enc.cross_k[l * rows * d]);
    cross.v.Apply(enc.memory.data(), rows, &enc.cross_v[l * rows * d]);
    for (size_t b = 0; b < enc.batch && run.capture_value_norms; ++b) {
      const size_t len = enc.lengths[b];
      HeadValueNorms(cross, c.heads, &enc.cross_v[(l * enc.batch + b) * S * d],
                     len, &enc.cross_value_norms[b][l * c.heads * len],
                     scratch);
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
  const size_t S = enc.max_len;
  const size_t rows = enc.batch * S;
  std::vector<float> x(rows * d), in(rows * d), q(rows * d), k(rows * d),
      v(rows * d), ctx(rows * d), out(rows * d), hidden(rows * c.d_ff),
      scratch(std::max(2 * S, d));

  // Padded positions embed the pad token; the key mask hides them.
  for (size_t b = 0; b < enc.batch; ++b) {
    for (size_t s = 0; s < S; ++s) {
      const int token = s < enc.lengths[b] ? sources[b][s] : c.pad_id;
      Embed(weights_.source_embedding, token, s, &x[(b * S + s) * d],
            scratch.data());
    }
  }
  if (run.capture_value_norms) {
    enc.value_norms.resize(enc.batch);
    enc.cross_value_norms.resize(enc.batch);
    for (size_t b = 0; b < enc.batch; ++b) {
      enc.value_norms[b].resize(c.encoder_layers * c.heads * enc.lengths[b]);
      enc.cross_value_norms[b].resize(c.decoder_layers * c.heads *
                                      enc.lengths[b]);
    }
  }
  std::vector<float> norm_scratch(run.capture_value_norms ? 2 * c.heads * S * d
                                                          : 0);
  const bool summed = run.capture_attention && run.capture_value_norms;
  if (run.capture_attention) {
    enc.attention.resize(enc.batch);
    if (summed) enc.layer_contributions.resize(enc.batch);
    for (size_t b = 0; b < enc.batch; ++b) {
      const size_t len = enc.lengths[b];
      enc.attention[b].assign(c.encoder_layers * c.heads * len * len, 0.0f);
      if (summed) {
        enc.layer_contributions[b].resize(c.encoder_layers * len * len);
      }
    }
  }
  const bool probe = run.probe.on && run.probe.kind == AttentionKind::kEncoder;
  if (probe) {
    enc.queries.resize(enc.batch);
    enc.keys.resize(enc.batch);
  }

  for (size_t l = 0; l < c.encoder_layers; ++l) {
    const EncoderLayerWeights& layer = weights_.encoder[l];
    Sublayer(
        layer.self_attn_norm, c.pre_norm, c.layer_norm_eps, x.data(), rows, d,
        in.data(), out.data(), [&](const float* h, float* y) {
          layer.self_attn.q.Apply(h, rows, q.data());
          layer.self_attn.k.Apply(h, rows, k.data());
          layer.self_attn.v.Apply(h, rows, v.data());
          for (size_t b = 0; b < enc.batch; ++b) {
            const size_t len = enc.lengths[b];
            HeadControl control;
            control.heads = c.heads;
            control.head_dim = c.head_dim();
            control.disabled =
                run.head_mask.Layer(AttentionKind::kEncoder, l, c.heads);
            if (run.capture_attention) {
              control.probs = enc.attention[b].data() + l * c.heads * len * len;
            }
            const size_t off = b * S * d;
            if (run.capture_value_norms) {
              HeadValueNorms(layer.self_attn, c.heads, &v[off], len,
                             &enc.value_norms[b][l * c.heads * len],
                             norm_scratch.data());
            }
            PaddedSelfAttention(&q[off], &k[off], &v[off], d, S, len, control,
                                &ctx[off], scratch.data());
            if (summed) {
              LayerContributions(layer.self_attn, c.heads, &v[off], len,
                                 control.probs, len, control.disabled,
                                 &enc.layer_contributions[b][l * len * len],
                                 norm_scratch.data());
            }
            if (probe && run.probe.layer == l) {
              CopyHead(&q[off], len, d, run.probe.head, c.head_dim(),
                       &enc.queries[b]);
              CopyHead(&k[off], len, d, run.probe.head, c.head_dim(),
                       &enc.keys[b]);
            }
          }
          layer.self_attn.out.Apply(ctx.data(), rows, y);
        });
    Sublayer(layer.ffn_norm, c.pre_norm, c.layer_norm_eps, x.data(), rows, d,
             in.data(), out.data(), [&](const float* h, float* y) {
               layer.ffn.Apply(h, rows, c.activation, hidden.data(), y);
             });
  }
  if (c.pre_norm)
    weights_.encoder_norm.Apply(x.data(), rows, d, c.layer_norm_eps);
  enc.memory = std::move(x);

  ProjectCross(enc, run, norm_scratch.data());
  return enc;
}

}  // namespace heed
