// A loaded Transformer: the encoder over a batch of sources, and the decoder
// run one step at a time with a key/value cache (or teacher-forced over a
// whole target). Decoding strategies drive it; it knows nothing of search.
#ifndef HEED_CORE_MODEL_MODEL_H_
#define HEED_CORE_MODEL_MODEL_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/model/buffer.h"
#include "core/model/config.h"
#include "core/model/model_file.h"
#include "core/model/run_options.h"
#include "core/model/step_capture.h"
#include "core/model/weights.h"

namespace heed {

// The encoder's view of a batch of B source sentences, padded to max_len.
struct EncoderOutput {
  size_t batch = 0;             // B
  size_t max_len = 0;           // S: longest source in tokens
  std::vector<size_t> lengths;  // (B): real tokens per sentence
  std::vector<float> memory;    // (B, S, d_model): final encoder states
  // Cross-attention keys and values, projected once per source (these and
  // memory are 0 past each sentence's length):
  std::vector<float> cross_k;  // (decoder_layers, B, S, d_model)
  std::vector<float> cross_v;  // (decoder_layers, B, S, d_model)
  // When captured, per sentence b: (encoder_layers, heads, len_b, len_b).
  std::vector<std::vector<float>> attention;
  // With capture_value_norms, per sentence b: ‖(x_j W_V + b_V)^h W_O^h‖ for
  // each source token j (HeadValueNorms), of the encoder's self-attention
  // (encoder_layers, heads, len_b) and of each decoder layer's
  // cross-attention (decoder_layers, heads, len_b).
  std::vector<std::vector<float>> value_norms;
  std::vector<std::vector<float>> cross_value_norms;
  // With capture_value_norms and capture_attention, per sentence b:
  // ‖Σ_h α^h_ij f_h(x_j)‖ of each encoder layer (LayerContributions),
  // (encoder_layers, len_b, len_b).
  std::vector<std::vector<float>> layer_contributions;
  // With capture_alti and capture_attention, per sentence b: each encoder
  // layer's ALTI contributions (BlockAlti), (encoder_layers, len_b, len_b).
  std::vector<std::vector<float>> alti;
  // With a probe of an encoder head, per sentence b: its queries and keys,
  // (len_b, head_dim) each.
  std::vector<std::vector<float>> queries, keys;
};

// What a teacher-forced pass over T decoder inputs keeps besides its
// log-probs, for sentence b of len_b source tokens.
struct ForcedCaptures {
  // With capture_attention:
  std::vector<float> self_probs;   // (decoder_layers, heads, T, T)
  std::vector<float> cross_probs;  // (decoder_layers, heads, T, len_b)
  // With capture_attention and capture_value_norms: ‖Σ_h α^h_ij f_h(x_j)‖
  // per layer (LayerContributions).
  std::vector<float> self_layer_contributions;   // (decoder_layers, T, T)
  std::vector<float> cross_layer_contributions;  // (decoder_layers, T, len_b)
  // With capture_alti and capture_attention: each block's ALTI contributions
  // (BlockAlti); cross-attention's last column is the decoder's residual.
  std::vector<float> alti_self;   // (decoder_layers, T, T)
  std::vector<float> alti_cross;  // (decoder_layers, T, len_b + 1)
  // With a probe of a decoder or cross head: its queries (T, head_dim) and
  // keys (T or len_b, head_dim).
  std::vector<float> queries, keys;
};

// Decoder state for R hypotheses ("rows") that advance in lockstep. Searches
// read the public fields; the caches and scratch belong to the model.
class DecoderState {
 public:
  const EncoderOutput* source = nullptr;  // the memory the rows attend to
  size_t rows = 0;                        // R
  size_t capacity = 0;                    // most steps the cache holds (T)
  size_t step = 0;                        // positions fed so far
  std::vector<size_t> sentence;           // (R): source sentence of each row
  Buffer log_probs;                       // (R, target_vocab) of the last step

 private:
  friend class Model;
  bool capture = false;  // keep this step's probabilities
  size_t max_rows = 0;   // R0: rows the buffers hold
  // Buffers hold unspecified values until written: only positions fed so
  // far (and rows in use) are valid.
  Buffer self_k;  // (decoder_layers, R0, T, d): cached keys
  Buffer self_v;  // (decoder_layers, R0, T, d): cached values
  // Row r's position j lies in cache row cache_row[r·T + j] (the row that
  // computed it, at the step it was fed): Reorder moves these indices, not
  // keys and values, and a written position is never overwritten.
  std::vector<uint32_t> cache_row;   // (R0, T)
  std::vector<uint32_t> spare_rows;  // (R0, T): Reorder's scratch
  std::vector<size_t> offsets;       // (R0, T): where each position starts in a
                                     // layer's cache, in floats, for this step
  bool capture_hidden = false;       // keep each layer's output of the step
  Buffer hidden_out;                 // (R0, decoder_layers, d) when captured
  bool capture_norms = false;        // keep the sublayer norms of the step
  Buffer sublayer_norms;             // (R0, decoder_layers, 4) when captured:
                          // ‖x‖ entering self-attention, ‖self(x)‖,
                          // ‖x‖ entering cross-attention, ‖cross(x)‖
  bool capture_values = false;  // keep the value norms of the step
  Buffer value_norms;           // (R0, decoder_layers, heads) when captured:
                                // ‖(x W_V + b_V)^h W_O^h‖ of the input
  Buffer value_scratch;         // HeadValueNorms' scratch and result
  // Probabilities of the last step when captured:
  Buffer self_probs;   // (R, decoder_layers, heads, T), of which the first
                       // `step` of each T are valid
  Buffer cross_probs;  // (R, decoder_layers, heads, S), the first len_b valid
  // Scratch for one step, sized once.
  std::vector<float> x, q, k, v, ctx, tmp, out, hidden, scores;
};

// The key/value cache of a finished decoder state, kept for the next state
// a thread starts: a batch's cache runs to hundreds of megabytes, and fresh
// memory is faulted in page by page as the steps first write it.
struct SpareCache {
  Buffer keys, values;
};

class Model {
 public:
  // Reads the config from the file's metadata and every tensor it needs.
  // Throws heed::Error.
  static Model Load(ModelFile file);

  const ModelConfig& config() const { return config_; }
  const ModelFile& file() const { return file_; }
  size_t parameters() const { return weights_.parameters; }

  // Throws heed::Error if a head mask has the wrong size.
  void CheckRunOptions(const RunOptions& run) const;

  // Encodes B token sequences (each non-empty, every id < source_vocab).
  EncoderOutput Encode(const std::vector<std::vector<int>>& sources,
                       const RunOptions& run) const;

  // A decoder state for rows over `enc`, row r reading sentence
  // row_sentence[r], with room for max_steps steps and for max_rows rows
  // (0: as many as row_sentence has); its cache reuses spare's memory when
  // given.
  DecoderState StartDecoding(const EncoderOutput& enc,
                             std::vector<size_t> row_sentence, size_t max_steps,
                             const RunOptions& run, size_t max_rows = 0,
                             SpareCache* spare = nullptr) const;

  // Hands a state's cache to spare (when given) once the state is done.
  static void KeepCache(DecoderState& state, SpareCache* spare);

  // Feeds tokens [R] at position state.step; fills state.log_probs.
  void Step(DecoderState& state, const int* tokens,
            const RunOptions& run) const;

  // Row `row`'s captures of the last step, as the state was started to
  // keep them (run's capture_attention, capture_hidden,
  // capture_sublayer_norms, capture_value_norms), into *out; fields the
  // state does not capture are left as they are. Throws heed::Error for a
  // row the state does not have.
  void CaptureStep(const DecoderState& state, size_t row,
                   StepCapture* out) const;

  // log_probs [target_vocab] the output layer gives for a decoder hidden
  // state x [d] (after the final LayerNorm of pre-norm models): the logit
  // lens at a layer whose output is x. x is not changed.
  void LensLogProbs(const float* x, float* log_probs) const;

  // Keeps rows `parents`: new row i continues old row parents[i] (the cache
  // is copied, so a parent may appear more than once, or not at all). At
  // most max_rows rows.
  void Reorder(DecoderState& state, const std::vector<size_t>& parents) const;

  // Teacher-forced decoder over inputs [T] (BOS, y1, ...) for sentence b of
  // enc, through the causal self-attention path. Returns log-probs
  // (T, target_vocab); keeps in *captures (when not null) what run asks for.
  std::vector<float> ForcedLogProbs(const EncoderOutput& enc, size_t b,
                                    const std::vector<int>& inputs,
                                    const RunOptions& run,
                                    ForcedCaptures* captures = nullptr) const;

  // What run asks for, kept from ForcedLogProbs over a hypothesis's tokens
  // (its inputs: BOS, then every token but the last); empty for no tokens.
  ForcedCaptures Replay(const EncoderOutput& enc, size_t b,
                        const std::vector<int>& tokens,
                        const RunOptions& run) const;

 private:
  Model(ModelFile file, ModelConfig config);

  // x [d] = embedding[token] (· √d) + pe, pe [d] = PE(pos) of its position
  // (computed once for every row at that position).
  void Embed(const float* table, int token, const float* pe, float* x) const;
  // The decoder's input at position pos: Embed of the target table, or the
  // positions alone at pos 0 when the config's decoder_start is zeros.
  void EmbedTarget(int token, size_t pos, const float* pe, float* x) const;

  // x [Σ len_b, d]: the sources' embeddings packed (sentence b from row
  // first[b]), each with its position as `positions` says; pe is scratch
  // [d].
  void EmbedSources(const std::vector<std::vector<int>>& sources,
                    const EncoderOutput& enc, const std::vector<size_t>& first,
                    Positions positions, float* x, float* pe) const;

  // The cross-attention keys and values of every decoder layer from the
  // final encoder states, packed (Σ len_b, d) (and their value norms when
  // run captures them); scratch as HeadValueNorms needs.
  void ProjectCross(const std::vector<float>& packed, EncoderOutput& enc,
                    const RunOptions& run, float* scratch) const;

  // Keeps the value norms of v [rows, d], layer `layer`'s self-attention
  // values of this step, in s.value_norms.
  void KeepValueNorms(DecoderState& s, size_t layer, const float* v) const;

  // log_probs [rows, target_vocab] = log-softmax of the output projection of
  // the decoder's last hidden states x [rows, d] (after the final LayerNorm
  // of pre-norm models, applied to x in place).
  void Project(float* x, size_t rows, float* log_probs) const;

  ModelFile file_;
  ModelConfig config_;
  Weights weights_;
};

}  // namespace heed

#endif  // HEED_CORE_MODEL_MODEL_H_
