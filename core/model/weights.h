// Every tensor of a model, as the forward pass reads them. Names and shapes
// are those of models/FORMAT.md.
#ifndef HEED_CORE_MODEL_WEIGHTS_H_
#define HEED_CORE_MODEL_WEIGHTS_H_

#include <deque>
#include <vector>

#include "core/model/attention.h"
#include "core/model/config.h"
#include "core/model/layers.h"
#include "core/model/model_file.h"

namespace heed {

struct EncoderLayerWeights {
  AttentionWeights self_attn;
  Norm self_attn_norm;
  FeedForward ffn;
  Norm ffn_norm;
};

struct DecoderLayerWeights {
  AttentionWeights self_attn;  // masked self-attention
  Norm self_attn_norm;
  AttentionWeights cross_attn;  // queries from the decoder, keys/values from
                                // the encoder output
  Norm cross_attn_norm;
  FeedForward ffn;
  Norm ffn_norm;
};

struct Weights {
  const float* source_embedding = nullptr;   // (source_vocab, d_model)
  const float* target_embedding = nullptr;   // (target_vocab, d_model)
  std::vector<EncoderLayerWeights> encoder;  // (encoder_layers)
  Norm encoder_norm;                         // pre-norm models only
  std::vector<DecoderLayerWeights> decoder;  // (decoder_layers)
  Norm decoder_norm;                         // pre-norm models only
  Linear output;                             // (target_vocab, d_model)
  size_t parameters = 0;  // number of model parameters (tied ones once)
  // F32 copies of tensors the file holds as F16 or unaligned; the pointers
  // above point here or into the file's mapping.
  std::deque<std::vector<float>> converted;
};

// Reads and checks every tensor the config calls for. Throws heed::Error
// naming the tensor that is missing or has the wrong shape or dtype.
Weights LoadWeights(const ModelFile& file, const ModelConfig& config);

}  // namespace heed

#endif  // HEED_CORE_MODEL_WEIGHTS_H_
