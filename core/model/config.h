// Every size and option of a heed model. It travels as JSON in the model
// file's metadata (see models/FORMAT.md), so one engine runs every variant.
#ifndef HEED_CORE_MODEL_CONFIG_H_
#define HEED_CORE_MODEL_CONFIG_H_

#include <cstddef>
#include <map>
#include <string>

namespace heed {

enum class Activation { kRelu, kGelu, kGeluTanh, kSilu };

// Layout of the sinusoidal positional encoding (core/model/positional.h).
enum class PositionLayout {
  kInterleaved,  // the paper's: sin on even, cos on odd dimensions
  kHalves,       // tensor2tensor's and Marian's: the sines, then the cosines
};

// What the decoder reads at position 0, before any target token.
enum class DecoderStart {
  kBos,    // the bos_id embedding (the paper's shifted-right target)
  kZeros,  // a zero vector, positions added (Marian)
};

struct ModelConfig {
  size_t d_model = 512;       // width of every residual stream
  size_t heads = 8;           // attention heads; d_model % heads == 0
  size_t d_ff = 2048;         // hidden width of the feed-forward layers
  size_t encoder_layers = 6;  // number of encoder layers
  size_t decoder_layers = 6;  // number of decoder layers
  size_t source_vocab = 0;    // rows of the source embedding
  size_t target_vocab = 0;    // rows of the target embedding and output
  Activation activation = Activation::kRelu;  // feed-forward activation
  bool pre_norm = false;  // LayerNorm before each sublayer (and a final one)
                          // instead of after the residual add (the paper)
  float layer_norm_eps = 1e-5f;   // ε inside every LayerNorm
  bool scale_embeddings = true;   // multiply embeddings by √d_model
  bool shared_embeddings = true;  // encoder and decoder share one embedding
  bool tied_output = true;        // output projection is the target embedding
  bool output_bias = false;  // the output projection has a bias [target_vocab]
  int pad_id = 0;            // padding token (never produced)
  int bos_id = 1;            // first decoder input
  int eos_id = 2;            // ends a hypothesis
  int unk_id = 3;            // unknown piece
  PositionLayout positions = PositionLayout::kInterleaved;
  DecoderStart decoder_start = DecoderStart::kBos;
  // Language code -> tag piece prepended to the source ("de" -> "<2de>").
  // Empty for a model with one target language.
  std::map<std::string, std::string> target_tags;
  // Longest source the model was trained on, in tokens (informational: the
  // positional encoding works for any length).
  size_t trained_max_length = 256;

  size_t head_dim() const { return d_model / heads; }
};

const char* ActivationName(Activation a);

// Parses and validates the config JSON. Throws heed::Error naming the field.
ModelConfig ParseConfig(const std::string& json);
std::string ConfigToJson(const ModelConfig& config);

}  // namespace heed

#endif  // HEED_CORE_MODEL_CONFIG_H_
