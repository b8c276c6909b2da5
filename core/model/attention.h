// Multi-head scaled dot-product attention, softmax(QKᵀ/√d_k)·V, on
// projected queries, keys and values. Head h owns columns
// [h·head_dim, (h+1)·head_dim) of every row. The projections themselves and
// the output projection are the caller's (see AttentionWeights).
//
// Two entry points:
//   SelfAttention  every query of a sequence over its keys: the encoder (no
//                  mask) and the decoder's teacher-forced pass (causal: keys
//                  after the query get -inf)
//   AttendQuery    one query over a prefix of keys: the decoder's cached
//                  self-attention at one step, and cross-attention
#ifndef HEED_CORE_MODEL_ATTENTION_H_
#define HEED_CORE_MODEL_ATTENTION_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/model/layers.h"

namespace heed {

struct AttentionWeights {
  Linear q;    // (d_model, d_model)
  Linear k;    // (d_model, d_model)
  Linear v;    // (d_model, d_model)
  Linear out;  // (d_model, d_model)
};

// f [heads · n, d_model]: row (h, j) = (v_j)_h · W_O^h, head h's share of
// the output projection of value row j, without the projection's bias.
// scratch: heads · n · d_model.
void HeadOutputs(const AttentionWeights& w, size_t heads, const float* v,
                 size_t n, float* f, float* scratch);

// norms [heads, n]: ‖(v_j)_h · W_O^h‖₂ for the value rows v [n, d_model]
// (bias included), W_O^h the head's rows of the output projection, without
// its bias: the size of what token j adds through head h per unit of
// attention (Kobayashi et al. 2020). scratch: 2 · heads · n · d_model.
void HeadValueNorms(const AttentionWeights& w, size_t heads, const float* v,
                    size_t n, float* norms, float* scratch);

// summed [rows, n] = ‖Σ_h α^h_ij · (v_j)_h W_O^h‖₂ over the heads not
// disabled ([heads] flags or nullptr), for probs α [heads, rows, n]: the
// size of what token j adds to row i through the whole layer, where heads
// can reinforce or cancel each other (Kobayashi et al. 2020's ‖Σ_h‖).
// scratch: 2 · heads · n · d_model. norms [heads, n], when given, receives
// what HeadValueNorms would, from the same head outputs.
void LayerContributions(const AttentionWeights& w, size_t heads, const float* v,
                        size_t n, const float* probs, size_t rows,
                        const uint8_t* disabled, float* summed, float* scratch,
                        float* norms = nullptr);

// An attention block's residual connection, as ALTI reads it.
struct AltiResidual {
  const float* x = nullptr;    // [rows, d_model]: the block's input
  const Norm* norm = nullptr;  // post-norm: the LayerNorm after the sum;
                               // nullptr for pre-norm
  float eps = 0.0f;            // that LayerNorm's epsilon
  bool column = false;         // cross-attention: the residual is column n
  bool off = false;            // the sublayer is switched off
};

// c [rows, n + column]: the ALTI contributions (explain/alti.h) of one
// block with probs α [heads, rows, n] over the value rows v [n, d_model],
// heads `disabled` adding nothing. scratch: 2 · heads · n · d_model.
void BlockAlti(const AttentionWeights& w, size_t heads, const float* v,
               size_t n, const float* probs, size_t rows,
               const uint8_t* disabled, const AltiResidual& r, float* c,
               float* scratch);

// out [n, head_dim] = head `head`'s columns of x [n, stride] (its query,
// key or value vectors).
void CopyHead(const float* x, size_t n, size_t stride, size_t head,
              size_t head_dim, std::vector<float>* out);

// What a caller wants of one attention block besides its output.
struct HeadControl {
  size_t heads = 0;
  size_t head_dim = 0;
  const uint8_t* disabled = nullptr;  // [heads]: nonzero zeroes that head's
                                      // output; nullptr: all heads on
  float* probs = nullptr;        // where to copy the probabilities, or nullptr;
                                 // the layout is given per function
  size_t probs_head_stride = 0;  // AttendQuery: floats between two heads'
                                 // rows of probs (0: the number of keys)
};

// Which keys a query of SelfAttention sees.
enum class Mask {
  kNone,    // every key (the encoder)
  kCausal,  // query i sees keys 0..i (the decoder over its whole target)
};

// q, k, v [len, stride] for one sequence. ctx [len, stride] out. probs:
// [heads, len, len], exactly 0 above the diagonal when causal. scratch
// [len], or [2·len] when causal.
void SelfAttention(const float* q, const float* k, const float* v,
                   size_t stride, size_t len, Mask mask,
                   const HeadControl& control, float* ctx, float* scratch);

// One query q [d] over keys/values [keys, stride]. ctx [d] out.
// probs: [heads, keys] with rows probs_head_stride apart. scratch
// [heads · keys].
// offsets [keys], when given, says where key and value j start (floats from
// k and v) instead of j · stride: the decoder's cache, whose positions a
// beam's rows share without copying.
void AttendQuery(const float* q, const float* k, const float* v, size_t stride,
                 size_t keys, const HeadControl& control, float* ctx,
                 float* scratch, const size_t* offsets = nullptr);

}  // namespace heed

#endif  // HEED_CORE_MODEL_ATTENTION_H_
