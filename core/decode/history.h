// The tree of tokens a search has produced. Each node records what the
// decoder step that produced it attended to, so the hypothesis finally
// returned carries its own attention history however beams were reordered.
#ifndef HEED_CORE_DECODE_HISTORY_H_
#define HEED_CORE_DECODE_HISTORY_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/decode/options.h"
#include "core/error.h"
#include "core/model/model.h"

namespace heed {

// The k best entries of x [n], best first; ties go to the lower index. The
// entry `exclude` (or -1) is never chosen.
void TopK(const float* x, size_t n, size_t k, int exclude,
          std::vector<Candidate>* out);

// −Σ p log p (nats) of a distribution given as log-probabilities [n]; −∞
// entries (p = 0) add nothing.
float Entropy(const float* log_probs, size_t n);

class History {
 public:
  // What each node keeps, from the search's options and the run's captures:
  // what the decoder state captures (Model::CaptureStep), alternatives
  // (run.capture_attention), token confidence, and the logit lens's k.
  // Throws heed::Error for a lens without run.capture_hidden.
  History(const Model& model, const DecodingOptions& options,
          const RunOptions& run)
      : model_(model),
        layers_(model.config().decoder_layers),
        heads_(model.config().heads),
        vocab_(model.config().target_vocab),
        capture_(run.capture_attention),
        captures_(run.capture_attention || run.capture_hidden ||
                  run.capture_sublayer_norms || run.capture_value_norms),
        confidence_(options.token_confidence),
        lens_k_(options.logit_lens) {
    if (lens_k_ > 0 && !run.capture_hidden) {
      throw Error(
          "search: the logit lens needs the run's hidden states (no "
          "captured hidden states)");
    }
  }

  // Records token (cumulative log-prob `log_prob`) after `parent` (or -1),
  // produced by row `row` of the step state.step - 1. state.log_probs hold
  // the model's distribution (for confidence); `ranked` [vocab], when not
  // null, what the search ranked after its rules (for the alternatives).
  // Returns the node's index.
  int Add(int parent, int token, float log_prob, const DecoderState& state,
          size_t row, const float* ranked = nullptr);

  size_t length(int node) const { return nodes_[node].length; }
  float log_prob(int node) const { return nodes_[node].log_prob; }

  // The tokens from the first to `node` (none for -1) into *out.
  void Tokens(int node, std::vector<int>* out) const;

  // Frees what the steps captured at every node that is not on the way to
  // one of `live` (the hypotheses that may still be returned with maps):
  // a beam's pruned branches would otherwise hold K times the maps of the
  // hypothesis returned. Tokens and scores stay.
  void Prune(const std::vector<int>& live);

  // How many floats the nodes' captures hold now (what Prune frees).
  size_t CapturedFloats() const;

  // The hypothesis ending at `node`, with `score`; with `maps`, also what
  // its steps captured (attention, norms, alternatives, the logit lens),
  // moved out of the history: a node's captures go to one hypothesis.
  Hypothesis Backtrack(int node, float score, size_t source_length, bool maps);

 private:
  struct Node {
    int parent = -1;
    int token = 0;
    float log_prob = 0.0f;  // cumulative
    size_t length = 0;      // tokens up to and including this one
    StepCapture step;       // what the model captured (hidden with the lens)
    std::vector<Candidate> alternatives;  // with attention
    float prob = 0.0f;                    // of the token, with confidence
    float entropy = 0.0f;                 // of its step, with confidence
  };

  // The entropy of row `row`'s distribution at the state's last step,
  // computed once however many nodes the row gives (beam search keeps up to
  // K tokens of one row).
  float RowEntropy(const DecoderState& state, size_t row);

  // The logit lens of the hypothesis `chain` (node indices) into *h.
  void AddLens(const std::vector<int>& chain, Hypothesis* h) const;

  const Model& model_;
  size_t layers_;
  size_t heads_;
  size_t vocab_;
  bool capture_;
  bool captures_;  // whether the nodes keep anything Prune can free
  bool confidence_;
  size_t lens_k_;
  std::vector<Node> nodes_;
  std::vector<uint8_t> on_path_;  // Prune's marks, one per node
  size_t entropy_step_ = 0;       // the step entropies_ belong to
  std::vector<float> entropies_;  // per row of that step, NaN until computed
};

}  // namespace heed

#endif  // HEED_CORE_DECODE_HISTORY_H_
