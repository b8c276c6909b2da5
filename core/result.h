// What a translation returns: per text its translation and, per sentence,
// its hypotheses and, when asked for, every attention map and the
// quantities derived from them (docs/attention.md). Filled by
// core/assemble.cc.
#ifndef HEED_CORE_RESULT_H_
#define HEED_CORE_RESULT_H_

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/explain/head_roles.h"
#include "core/options.h"

namespace heed {

// All attention of one sentence. S = source tokens (with tag and EOS),
// T = target tokens (EOS last when produced).
struct Attention {
  size_t encoder_layers = 0, decoder_layers = 0, heads = 0, source = 0,
         target = 0;
  std::vector<float> encoder;  // (encoder_layers, heads, S, S)
  std::vector<float> decoder;  // (decoder_layers, heads, T, T), 0 above the
                               // diagonal; column j is decoder input j
  std::vector<float> cross;    // (decoder_layers, heads, T, S)
  std::vector<float> rollout;  // (encoder_layers, S, S): attention rollout
                               // of the encoder (explain/rollout.h)
  HeadRoles roles;  // each head's habits on this sentence (head_roles.h)
  // With contributions: α_ij · ‖f_h(x_j)‖ (explain/contributions.h), the
  // size of what token j adds, per head, in the same shapes as encoder,
  // decoder and cross (for the decoder, j is decoder input j).
  std::vector<float> encoder_contributions;  // (encoder_layers, heads, S, S)
  std::vector<float> decoder_contributions;  // (decoder_layers, heads, T, T)
  std::vector<float> cross_contributions;    // (decoder_layers, heads, T, S)
  // With contributions, per decoder layer and step: ‖x‖ entering
  // self-attention, ‖what self-attention adds‖ (from the words before),
  // ‖x‖ entering cross-attention, ‖what cross-attention adds‖ (from the
  // source).
  std::vector<float> sublayer_norms;  // (decoder_layers, T, 4)
  // With contributions: ‖Σ_h α^h_ij f_h(x_j)‖, the size of what token j
  // adds through the whole layer (heads can reinforce or cancel).
  std::vector<float> encoder_layer_contributions;  // (encoder_layers, S, S)
  std::vector<float> decoder_layer_contributions;  // (decoder_layers, T, T)
  std::vector<float> cross_layer_contributions;    // (decoder_layers, T, S)
  // With alti: ALTI+ (explain/alti.h). The encoder's rollout after each
  // layer, and for each decoder layer and step what it draws on: the first
  // S columns the source pieces, the next T the decoder inputs (BOS, then
  // the target pieces before it). Rows sum to 1; the last layer's source
  // columns summed are the step's source contribution.
  std::vector<float> alti_encoder;  // (encoder_layers, S, S)
  std::vector<float> alti;          // (decoder_layers, T, S + T)
  // With query_key: that head's projected queries and keys (bias included,
  // before the scaling): its attention is softmax_j(q_i · k_j / √head_dim)
  // over the keys it may see.
  std::optional<HeadRef> query_key;
  size_t head_dim = 0;
  std::vector<float> queries;  // (S for encoder, else T, head_dim)
  std::vector<float> keys;     // (T for decoder, else S, head_dim)
};

struct Alternative {
  std::string piece;
  float probability = 0.0f;
};

// The logit lens of one sentence (logit_lens = k > 0): each decoder layer's
// output at each step projected through the output layer, as if the layers
// above it were not there. The last layer's is the real distribution.
struct LogitLens {
  size_t layers = 0, steps = 0, k = 0;
  std::vector<Alternative> top;    // (layers, steps, k): the k best pieces
  std::vector<float> token_probs;  // (layers, steps): the probability of the
                                   // piece the model produced at that step
};

struct Translation {  // one hypothesis
  std::string text;
  std::vector<std::string> pieces;
  std::vector<int> ids;
  float score = 0.0f;     // log-prob with the length penalty applied
  float log_prob = 0.0f;  // total log-prob
  // With token_confidence, per piece, from the model's own distribution:
  std::vector<float> token_probs;  // the piece's probability at its step
  std::vector<float> entropies;    // the entropy of that step, in nats
};

struct SentenceResult {
  std::string source;  // the sentence as given (or a piece of a long one)
  size_t segment = 0;  // index of its segment in Split(text)
  std::vector<std::string> source_pieces;  // what the encoder saw
  std::vector<int> source_ids;
  Translation best;                // == nbest[0]
  std::vector<Translation> nbest;  // sorted by score
  Attention attention;             // empty unless asked for
  // When attention is asked for: per target token, the best next tokens of
  // that decoding step with their probabilities.
  std::vector<std::vector<Alternative>> alternatives;
  LogitLens lens;  // of the best hypothesis, with logit_lens > 0
  // With erasure: "remove" or "unk", and (T, S) log p(best piece t) with the
  // whole source minus the same with source piece j erased
  // (explain/erasure.h); 0 in the columns of the tag and EOS.
  std::string erasure_mode;
  std::vector<float> erasure;
};

// HTML mode: one inline element of the text and where heed put it (each
// text at most 1,000 bytes, cut with "…").
struct HtmlTag {
  std::string tag;     // its start tag, verbatim
  std::string source;  // the source text it wrapped (tags out)
  std::string target;  // the translation's words it wraps now; empty when
                       // heed found none (the element is then empty)
};

struct Timings {
  double tokenize_ms = 0, encode_ms = 0, decode_ms = 0, total_ms = 0;
};

struct Result {
  std::string text;  // the whole translation, layout kept
  std::vector<SentenceResult> sentences;
  size_t target_tokens = 0;   // tokens produced, over all sentences
  std::vector<HtmlTag> tags;  // HTML mode: every inline element, in order
  // With alignments: (source word, target word) pairs, words counted from 0
  // at white space in the text and in its translation (Pharaoh "i-j"); each
  // target word at most once, words the model made up (or whose sentence
  // could not be placed) not at all.
  std::vector<std::pair<size_t, size_t>> alignment;
  Timings timings;  // shared by the texts of one call
};

// Called with each sentence's result as soon as its batch is decoded, in
// the order of the texts and their sentences: the index of its text, and
// the result (which Translate then moves into the returned Result). An
// exception it throws ends the call and reaches Translate's caller.
using SentenceCallback =
    std::function<void(size_t text, const SentenceResult& sentence)>;

}  // namespace heed

#endif  // HEED_CORE_RESULT_H_
