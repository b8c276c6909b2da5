// Per-run switches of the forward pass: what to capture, and heads,
// sublayers or positions to switch off.
#ifndef HEED_CORE_MODEL_RUN_OPTIONS_H_
#define HEED_CORE_MODEL_RUN_OPTIONS_H_

#include <cstddef>
#include <cstdint>
#include <vector>

namespace heed {

// The three kinds of attention block.
enum class AttentionKind { kEncoder = 0, kDecoder = 1, kCross = 2 };

// "encoder", "decoder" or "cross": the kind's name in messages, flags and
// the attention JSON.
inline const char* KindName(AttentionKind kind) {
  static const char* const kNames[3] = {"encoder", "decoder", "cross"};
  return kNames[static_cast<int>(kind)];
}

// Heads whose output is zeroed during a run, per kind: disabled[kind] is
// empty (all heads on) or (layers · heads) flags, row-major by layer.
struct HeadMask {
  std::vector<uint8_t> disabled[3];

  bool empty() const {
    return disabled[0].empty() && disabled[1].empty() && disabled[2].empty();
  }
  // The [heads] flags of one layer, or nullptr when all heads are on.
  const uint8_t* Layer(AttentionKind kind, size_t layer, size_t heads) const {
    const auto& v = disabled[static_cast<int>(kind)];
    return v.empty() ? nullptr : v.data() + layer * heads;
  }
};

// The sublayers of the model, each of which a run can switch off (its
// output zeroed: post-norm x = LayerNorm(x), pre-norm x unchanged).
enum class SublayerKind {
  kEncoderSelf = 0,  // encoder self-attention
  kEncoderFfn = 1,   // encoder feed-forward
  kDecoderSelf = 2,  // decoder (masked) self-attention
  kCross = 3,        // decoder cross-attention
  kDecoderFfn = 4,   // decoder feed-forward
};
constexpr int kSublayerKinds = 5;

// "encoder-self", "encoder-ffn", "decoder-self", "cross", "decoder-ffn".
inline const char* SublayerName(SublayerKind kind) {
  static const char* const kNames[kSublayerKinds] = {
      "encoder-self", "encoder-ffn", "decoder-self", "cross", "decoder-ffn"};
  return kNames[static_cast<int>(kind)];
}

inline bool InEncoder(SublayerKind kind) {
  return kind == SublayerKind::kEncoderSelf ||
         kind == SublayerKind::kEncoderFfn;
}

// Sublayers switched off, per kind: off[kind] is empty (all on) or one flag
// per layer of that kind's stack.
struct SublayerMask {
  std::vector<uint8_t> off[kSublayerKinds];

  bool Off(SublayerKind kind, size_t layer) const {
    const auto& v = off[static_cast<int>(kind)];
    return !v.empty() && v[layer] != 0;
  }
};

// What the model is told of each token's position.
enum class Positions {
  kOn = 0,        // the sinusoidal encoding, as trained
  kOff = 1,       // none, in the encoder and the decoder
  kShuffled = 2,  // the source's positions permuted (a fixed permutation
                  // per source length, ShuffledPositions); the decoder's
                  // as trained
};

// One attention head whose projected query and key vectors a run keeps
// (bias included, before the 1/√d_k scaling): score_ij = q_i · k_j / √d_k.
struct HeadProbe {
  bool on = false;
  AttentionKind kind = AttentionKind::kEncoder;
  size_t layer = 0;
  size_t head = 0;
};

struct RunOptions {
  bool capture_attention = false;       // keep every attention probability
  bool capture_hidden = false;          // keep each decoder layer's output of
                                        // the last step (for the logit lens)
  bool capture_value_norms = false;     // per head, the size of what each
                                        // source token can add (contributions)
  bool capture_alti = false;            // with capture_attention: each
                                        // attention block's ALTI
                                        // contributions (explain/alti.h)
  bool capture_sublayer_norms = false;  // per decoder layer and step, the
                                        // sizes of the residual stream and of
                                        // what self- and cross-attention add
  HeadProbe probe;                      // a head whose q and k to keep
  HeadMask head_mask;                   // sized by Model::CheckRunOptions
  SublayerMask sublayers;               // switched off; sized likewise
  Positions positions = Positions::kOn;
};

}  // namespace heed

#endif  // HEED_CORE_MODEL_RUN_OPTIONS_H_
