#include "core/model/model.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "core/error.h"

namespace heed {

Model::Model(ModelFile file, ModelConfig config)
    : file_(std::move(file)), config_(std::move(config)) {
  weights_ = LoadWeights(file_, config_);
}

Model Model::Load(ModelFile file) {
  const std::string where = "model file '" + file.source() + "': ";
  const auto& meta = file.metadata();
  auto format = meta.find("format");
  if (format != meta.end() && format->second != "heed") {
    throw Error(where + "format '" + format->second +
                "' in the metadata is not heed's");
  }
  auto version = meta.find("format_version");
  if (version == meta.end()) {
    throw Error(where +
                "no format_version in the metadata (not a heed "
                "model?)");
  }
  if (version->second != std::to_string(kFormatVersion)) {
    throw Error(where + "format version " + version->second +
                " is not supported; this engine reads version " +
                std::to_string(kFormatVersion));
  }
  auto config = meta.find("config");
  if (config == meta.end()) throw Error(where + "no config in the metadata");
  return Model(std::move(file), ParseConfig(config->second));
}

void Model::CheckRunOptions(const RunOptions& run) const {
  const size_t layers[3] = {config_.encoder_layers, config_.decoder_layers,
                            config_.decoder_layers};
  for (int k = 0; k < 3; ++k) {
    const size_t n = run.head_mask.disabled[k].size();
    if (n != 0 && n != layers[k] * config_.heads) {
      throw Error(std::string("head mask for ") +
                  KindName(static_cast<AttentionKind>(k)) + " attention has " +
                  std::to_string(n) + " flags; the model has " +
                  std::to_string(layers[k] * config_.heads) + " heads");
    }
  }
  for (int k = 0; k < kSublayerKinds; ++k) {
    const auto kind = static_cast<SublayerKind>(k);
    const size_t n = run.sublayers.off[k].size();
    const size_t want =
        InEncoder(kind) ? config_.encoder_layers : config_.decoder_layers;
    if (n != 0 && n != want) {
      throw Error(std::string("sublayer switches for ") + SublayerName(kind) +
                  " have " + std::to_string(n) + " flags; the model has " +
                  std::to_string(want) + " layers");
    }
  }
  const HeadProbe& p = run.probe;
  const int kind = static_cast<int>(p.kind);
  if (p.on && (kind < 0 || kind > 2 || p.layer >= layers[kind] ||
               p.head >= config_.heads)) {
    throw Error("query/key head (kind " + std::to_string(kind) + ", layer " +
                std::to_string(p.layer) + ", head " + std::to_string(p.head) +
                ") does not exist in this model");
  }
}

void Model::Embed(const float* table, int token, const float* pe,
                  float* x) const {
  const size_t d = config_.d_model;
  const float scale =
      config_.scale_embeddings ? std::sqrt(static_cast<float>(d)) : 1.0f;
  const float* row = table + static_cast<size_t>(token) * d;
  for (size_t i = 0; i < d; ++i) x[i] = row[i] * scale + pe[i];
}

void Model::EmbedTarget(int token, size_t pos, const float* pe,
                        float* x) const {
  if (pos == 0 && config_.decoder_start == DecoderStart::kZeros) {
    std::copy_n(pe, config_.d_model, x);  // Marian: no token at the start
  } else {
    Embed(weights_.target_embedding, token, pe, x);
  }
}

}  // namespace heed
