// heed's public API: load a model, translate text, and read back every
// attention probability behind the translation.
//
//   heed::Translator t = heed::Translator::FromFile("models/en-de.heed");
//   heed::TranslateOptions o;
//   o.to = "de";
//   heed::Result r = t.Translate("A dog runs in the park.", o);
//
// Every failure on bad input (model file, text, options) throws heed::Error
// with a message that says what and where; the translator stays usable.
// A Translator is immutable after loading: concurrent Translate calls from
// several threads are safe.
#ifndef HEED_CORE_TRANSLATOR_H_
#define HEED_CORE_TRANSLATOR_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/decode/options.h"
#include "core/error.h"
#include "core/model/config.h"
#include "core/model/run_options.h"
#include "core/text/sentences.h"

namespace heed {

class ModelFile;

// One attention head to switch off.
struct HeadRef {
  AttentionKind kind = AttentionKind::kEncoder;
  size_t layer = 0;
  size_t head = 0;
};

// The decoding options (beam size, length penalty, limits, n-best, rules
// against repetition; see decode/options.h for their defaults) and what the
// translator adds around them.
struct TranslateOptions : DecodingOptions {
  std::string to;  // target language code ("de"); required when the model
                   // has several target languages, else optional
  bool attention = false;             // return every attention map
  bool contributions = false;         // and the norm-based contributions
  std::vector<HeadRef> masked_heads;  // heads whose output is zeroed
  std::optional<HeadRef> query_key;   // a head whose query and key vectors
                                      // to return (with the attention)
  size_t max_sentence_tokens = 256;   // longer sentences are translated in
                                      // pieces of at most this many tokens
  size_t max_batch = 32;              // sentences decoded together (fewer
                                      // when beam × batch would pass 1024
                                      // hypotheses; the output is the same)
  size_t max_input_bytes = size_t{1} << 20;  // a longer text is refused
                                             // (heed::TextError), in [1, 2^30]
  size_t max_attention_bytes =
      size_t{256} << 20;  // with attention: the
                          // most the maps of one call may take (counted at the
                          // longest possible translation); a larger request
                          // throws heed::Error before decoding
  size_t threads = 1;     // batches decoded at once, one per thread (native
                          // builds; the result does not depend on it)
  // A start the translation must take (CTranslate2's target_prefix): as
  // text, tokenised like the model's output, or as target pieces. The
  // search continues after it; its tokens count in the score. Every text
  // must then be one sentence (the prefix applies to each).
  std::string target_prefix;
  std::vector<std::string> target_prefix_pieces;
};

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
};

struct Timings {
  double tokenize_ms = 0, encode_ms = 0, decode_ms = 0, total_ms = 0;
};

struct Result {
  std::string text;  // the whole translation, layout kept
  std::vector<SentenceResult> sentences;
  size_t target_tokens = 0;  // tokens produced, over all sentences
  Timings timings;           // shared by the texts of one call
};

// Called with each sentence's result as soon as its batch is decoded, in
// the order of the texts and their sentences: the index of its text, and
// the result (which Translate then moves into the returned Result). An
// exception it throws ends the call and reaches Translate's caller.
using SentenceCallback =
    std::function<void(size_t text, const SentenceResult& sentence)>;

class Translator {
 public:
  static Translator FromFile(const std::string& path);
  static Translator FromBytes(std::vector<uint8_t> bytes);

  Translator(Translator&&) noexcept;
  Translator& operator=(Translator&&) noexcept;
  ~Translator();

  std::vector<Result> Translate(const std::vector<std::string>& texts,
                                const TranslateOptions& options,
                                const SentenceCallback& on_sentence = {}) const;
  Result Translate(const std::string& text, const TranslateOptions& options,
                   const SentenceCallback& on_sentence = {}) const;

  // Throws heed::Error when an option is out of range, whatever the model
  // (the language and head checks need one: Translate makes them).
  static void CheckOptions(const TranslateOptions& options);

  // The text as Translate splits it: sentences and the whitespace between
  // them (is_sentence false); the segments' texts concatenate to `text`.
  static std::vector<Segment> Split(std::string_view text);

  // The sinusoidal encoding the model adds at positions 0..positions-1:
  // (positions, d_model), row-major. Throws heed::Error above 4096.
  std::vector<float> PositionalEncoding(size_t positions) const;

  const ModelConfig& config() const;
  const ModelFile& file() const;  // the loaded file: tensors, size, source
  std::vector<std::string> languages() const;  // target language codes
  size_t parameters() const;
  size_t file_size() const;

 private:
  struct Impl;
  explicit Translator(std::unique_ptr<Impl> impl);
  static std::unique_ptr<Impl> Build(ModelFile file);
  std::unique_ptr<Impl> impl_;
};

}  // namespace heed

#endif  // HEED_CORE_TRANSLATOR_H_
