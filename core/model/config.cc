#include "core/model/config.h"

#include <array>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>

#include "core/error.h"
#include "core/model/strict_json.h"

namespace heed {
namespace {

using nlohmann::json;

template <class T>
void Read(const json& j, const char* key, T* out) {
  if (!j.contains(key)) return;  // the default applies
  try {
    *out = j.at(key).get<T>();
  } catch (const json::exception& e) {
    throw Error(std::string("model config: field '") + key +
                "' has the wrong type: " + e.what());
  }
}

size_t ReadSize(const json& j, const char* key, size_t fallback, size_t lo,
                size_t hi) {
  // Read as 64 bits and range-checked before narrowing, so a 32-bit build
  // (wasm32) gives the native verdict instead of wrapping.
  uint64_t value = fallback;
  if (j.contains(key)) {
    const json& v = j.at(key);
    if (!v.is_number_integer() || v.get<long long>() < 0) {
      throw Error(std::string("model config: field '") + key +
                  "' must be a non-negative integer");
    }
    value = v.get<uint64_t>();
  }
  if (value < lo || value > hi) {
    throw Error(std::string("model config: field '") + key +
                "' = " + std::to_string(value) + " is outside [" +
                std::to_string(lo) + ", " + std::to_string(hi) + "]");
  }
  return static_cast<size_t>(value);
}

// A field that names one of two settings; names[0] is the default.
template <class E>
struct Choice {
  const char* key;
  std::array<std::pair<const char*, E>, 2> names;
};

constexpr Choice<PositionLayout> kPositions = {
    "positions",
    {{{"interleaved", PositionLayout::kInterleaved},
      {"halves", PositionLayout::kHalves}}}};
constexpr Choice<DecoderStart> kDecoderStart = {
    "decoder_start",
    {{{"bos", DecoderStart::kBos}, {"zeros", DecoderStart::kZeros}}}};

template <class E>
E ReadChoice(const json& j, const Choice<E>& choice) {
  std::string name = choice.names[0].first;
  Read(j, choice.key, &name);
  for (const auto& [n, value] : choice.names) {
    if (name == n) return value;
  }
  throw Error(std::string("model config: ") + choice.key + " must be " +
              choice.names[0].first + " or " + choice.names[1].first +
              ", not '" + name + "'");
}

template <class E>
const char* ChoiceName(const Choice<E>& choice, E value) {
  for (const auto& [n, v] : choice.names) {
    if (v == value) return n;
  }
  return "?";
}

}  // namespace

const char* ActivationName(Activation a) {
  switch (a) {
    case Activation::kRelu:
      return "relu";
    case Activation::kGelu:
      return "gelu";
    case Activation::kGeluTanh:
      return "gelu_tanh";
    case Activation::kSilu:
      return "silu";
  }
  return "?";
}

ModelConfig ParseConfig(const std::string& text) {
  json j;
  try {
    const auto* bytes = reinterpret_cast<const uint8_t*>(text.data());
    j = ParseStrictJson(bytes, bytes + text.size());
  } catch (const json::exception& e) {
    throw Error(std::string("model config: not valid JSON: ") + e.what());
  } catch (const Error& e) {
    throw Error(std::string("model config: ") + e.what());
  }
  if (!j.is_object()) throw Error("model config: must be a JSON object");
  ModelConfig c;
  c.d_model = ReadSize(j, "d_model", c.d_model, 1, 1 << 14);
  c.heads = ReadSize(j, "heads", c.heads, 1, 256);
  c.d_ff = ReadSize(j, "d_ff", c.d_ff, 1, 1 << 16);
  c.encoder_layers = ReadSize(j, "encoder_layers", c.encoder_layers, 1, 64);
  c.decoder_layers = ReadSize(j, "decoder_layers", c.decoder_layers, 1, 64);
  c.source_vocab = ReadSize(j, "source_vocab", 0, 4, 1 << 20);
  c.target_vocab = ReadSize(j, "target_vocab", 0, 4, 1 << 20);
  c.trained_max_length =
      ReadSize(j, "trained_max_length", c.trained_max_length, 1, 1 << 20);
  if (c.d_model % c.heads != 0) {
    throw Error("model config: d_model (" + std::to_string(c.d_model) +
                ") is not a multiple of heads (" + std::to_string(c.heads) +
                ")");
  }
  std::string activation = "relu";
  Read(j, "activation", &activation);
  if (activation == "relu") {
    c.activation = Activation::kRelu;
  } else if (activation == "gelu") {
    c.activation = Activation::kGelu;
  } else if (activation == "gelu_tanh") {
    c.activation = Activation::kGeluTanh;
  } else if (activation == "silu" || activation == "swish") {
    c.activation = Activation::kSilu;
  } else {
    throw Error("model config: unknown activation '" + activation + "'");
  }
  Read(j, "pre_norm", &c.pre_norm);
  Read(j, "layer_norm_eps", &c.layer_norm_eps);
  if (!(c.layer_norm_eps > 0.0f && c.layer_norm_eps < 1.0f)) {
    throw Error("model config: layer_norm_eps must be in (0, 1)");
  }
  Read(j, "scale_embeddings", &c.scale_embeddings);
  Read(j, "shared_embeddings", &c.shared_embeddings);
  Read(j, "tied_output", &c.tied_output);
  Read(j, "output_bias", &c.output_bias);
  if (c.shared_embeddings && c.source_vocab != c.target_vocab) {
    throw Error(
        "model config: shared_embeddings needs source_vocab == "
        "target_vocab");
  }
  const struct {
    const char* key;
    int* id;
  } ids[] = {{"pad_id", &c.pad_id},
             {"bos_id", &c.bos_id},
             {"eos_id", &c.eos_id},
             {"unk_id", &c.unk_id}};
  for (const auto& id : ids) {
    *id.id = static_cast<int>(
        ReadSize(j, id.key, static_cast<size_t>(*id.id), 0,
                 std::min(c.source_vocab, c.target_vocab) - 1));
  }
  Read(j, "target_tags", &c.target_tags);
  c.positions = ReadChoice(j, kPositions);
  c.decoder_start = ReadChoice(j, kDecoderStart);
  if (c.positions == PositionLayout::kHalves &&
      (c.d_model < 4 || c.d_model % 2 != 0)) {
    throw Error("model config: positions halves needs an even d_model >= 4");
  }
  return c;
}

std::string ConfigToJson(const ModelConfig& c) {
  json j = {{"d_model", c.d_model},
            {"heads", c.heads},
            {"d_ff", c.d_ff},
            {"encoder_layers", c.encoder_layers},
            {"decoder_layers", c.decoder_layers},
            {"source_vocab", c.source_vocab},
            {"target_vocab", c.target_vocab},
            {"activation", ActivationName(c.activation)},
            {"pre_norm", c.pre_norm},
            {"layer_norm_eps", c.layer_norm_eps},
            {"scale_embeddings", c.scale_embeddings},
            {"shared_embeddings", c.shared_embeddings},
            {"tied_output", c.tied_output},
            {"output_bias", c.output_bias},
            {"pad_id", c.pad_id},
            {"bos_id", c.bos_id},
            {"eos_id", c.eos_id},
            {"unk_id", c.unk_id},
            {"target_tags", c.target_tags},
            {kPositions.key, ChoiceName(kPositions, c.positions)},
            {kDecoderStart.key, ChoiceName(kDecoderStart, c.decoder_start)},
            {"trained_max_length", c.trained_max_length}};
  return j.dump();
}

}  // namespace heed
