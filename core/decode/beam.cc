// Beam search over a batch: each sentence keeps up to beam_size rows, laid
// out contiguously in the decoder state. At every step each row proposes its
// 2·beam best tokens; the sentence keeps the best beam_size that do not end,
// and an ending (EOS) candidate that ranks within the first beam_size
// finishes a hypothesis. A sentence is done once beam_size hypotheses have
// finished or it reaches its length limit.
#include <algorithm>
#include <cmath>
#include <numeric>

#include "core/decode/history.h"
#include "core/decode/repetition.h"
#include "core/decode/search.h"

namespace heed {
namespace {

struct Expansion {
  float log_prob;  // cumulative
  size_t row;      // parent row
  int token;
};

struct Finished {
  float score;
  int node;
};

// The rows that go on to the next step, in the order of the decoder state.
struct Rows {
  std::vector<size_t> parents;   // the row each continues
  std::vector<int> tokens;       // its next input
  std::vector<int> nodes;        // its last history node
  std::vector<float> log_probs;  // its cumulative log-prob

  void clear() { resize(0); }
  void resize(size_t n) {
    parents.resize(n);
    tokens.resize(n);
    nodes.resize(n);
    log_probs.resize(n);
  }
};

// Beam search over the batch of one encoder output.
class Beams {
 public:
  Beams(const Model& model, const EncoderOutput& enc,
        const DecodingOptions& options, const RunOptions& run,
        SpareCache* spare)
      : model_(model),
        c_(model.config()),
        enc_(enc),
        options_(options),
        run_(run),
        K_(options.beam_size),
        history_(model, options, run),
        finished_(enc.batch),
        penalize_(PenalizesRepeats(options)),
        spare_(spare) {
    limit_ = TargetLimits(enc, options, &capacity_);
    // One row per sentence at first; room for K per sentence.
    std::vector<size_t> rows(enc.batch);
    std::iota(rows.begin(), rows.end(), 0);
    state_ =
        model.StartDecoding(enc, rows, capacity_, run, enc.batch * K_, spare);
    alive_.nodes.assign(enc.batch, -1);
    alive_.log_probs.assign(enc.batch, 0.0f);
    alive_.tokens.assign(enc.batch, c_.bos_id);
  }

  std::vector<NBest> Run() {
    while (state_.rows > 0) {
      StopIfCancelled(options_);
      model_.Step(state_, alive_.tokens.data(), run_);
      next_.clear();
      for (size_t r = 0; r < state_.rows;) {
        const size_t b = state_.sentence[r];
        size_t end = r;
        while (end < state_.rows && state_.sentence[end] == b) ++end;
        Expand(r, end);
        Select(b, r);
        r = end;
      }
      model_.Reorder(state_, next_.parents);
      std::swap(alive_, next_);
      Prune();
    }
    Model::KeepCache(state_, spare_);
    return Results();
  }

 private:
  // Every row of [first, end) proposes its 2·K best tokens (after the rules
  // against repetition), or only the forced token while a forced prefix
  // lasts; best first.
  void Expand(size_t first, size_t end) {
    expansions_.clear();
    const size_t V = c_.target_vocab;
    if (penalize_) ruled_.resize((end - first) * V);
    const int forced = ForcedToken(options_, state_.step - 1);
    for (size_t row = first; row < end; ++row) {
      const float* log_probs = &state_.log_probs[row * V];
      if (forced >= 0) {  // one expansion per row: the forced token
        expansions_.push_back(
            Expansion{alive_.log_probs[row] + log_probs[forced], row, forced});
        if (penalize_)
          std::copy(log_probs, log_probs + V, &ruled_[(row - first) * V]);
        continue;
      }
      if (penalize_) {  // on a copy: the history keeps the model's own
        float* ruled = &ruled_[(row - first) * V];
        history_.Tokens(alive_.nodes[row], &produced_);
        std::copy(log_probs, log_probs + V, ruled);
        PenalizeRepeats(produced_, options_, ruled, V);
        log_probs = ruled;
      }
      TopK(log_probs, c_.target_vocab, 2 * K_, c_.pad_id, &top_);
      for (const Candidate& cand : top_) {
        if (std::isinf(cand.log_prob)) continue;  // banned
        expansions_.push_back(
            Expansion{alive_.log_probs[row] + cand.log_prob, row, cand.token});
      }
    }
    std::stable_sort(expansions_.begin(), expansions_.end(),
                     [](const Expansion& x, const Expansion& y) {
                       return x.log_prob > y.log_prob;
                     });
  }

  // Sentence b (rows from `first`) keeps the best K expansions that do not end;
  // one that ends within the first K finishes a hypothesis. The sentence is
  // done once K have finished or it reaches its length limit.
  void Select(size_t b, size_t first) {
    const size_t length = state_.step;  // tokens per hypothesis after it
    const bool at_limit = length >= limit_[b];
    const float penalty = LengthPenalty(length, options_.length_penalty);
    const size_t alive_begin = next_.parents.size();
    size_t kept = 0;
    for (size_t i = 0; i < expansions_.size() && kept < K_; ++i) {
      const Expansion& e = expansions_[i];
      const bool ends = e.token == c_.eos_id;
      if (ends && i >= K_) continue;
      const float* ranked =
          penalize_ ? &ruled_[(e.row - first) * c_.target_vocab] : nullptr;
      const int node = history_.Add(alive_.nodes[e.row], e.token, e.log_prob,
                                    state_, e.row, ranked);
      if (ends || at_limit) {
        finished_[b].push_back(Finished{e.log_prob / penalty, node});
        if (!ends) ++kept;
        continue;
      }
      next_.parents.push_back(e.row);
      next_.tokens.push_back(e.token);
      next_.nodes.push_back(node);
      next_.log_probs.push_back(e.log_prob);
      ++kept;
    }
    if (at_limit || finished_[b].size() >= K_) next_.resize(alive_begin);
  }

  // Frees the captures no hypothesis returned with maps can need: those
  // off the paths of the rows alive and of each sentence's best finished
  // hypothesis (one that finished lower never becomes the best).
  void Prune() {
    live_ = alive_.nodes;
    for (const std::vector<Finished>& done : finished_) {
      if (!done.empty()) live_.push_back(BestOf(done).node);
    }
    history_.Prune(live_);
  }

  // The first of the best-scored, as Results' stable sort ranks them.
  static const Finished& BestOf(const std::vector<Finished>& done) {
    size_t best = 0;
    for (size_t i = 1; i < done.size(); ++i) {
      if (done[i].score > done[best].score) best = i;
    }
    return done[best];
  }

  std::vector<NBest> Results() {
    std::vector<NBest> results(enc_.batch);
    for (size_t b = 0; b < enc_.batch; ++b) {
      std::vector<Finished> done = finished_[b];
      std::stable_sort(done.begin(), done.end(),
                       [](const Finished& x, const Finished& y) {
                         return x.score > y.score;
                       });
      for (size_t i = 0; i < done.size() && i < options_.nbest; ++i) {
        results[b].push_back(history_.Backtrack(done[i].node, done[i].score,
                                                enc_.lengths[b], i == 0));
      }
    }
    return results;
  }

  const Model& model_;
  const ModelConfig& c_;
  const EncoderOutput& enc_;
  const DecodingOptions& options_;
  const RunOptions& run_;
  const size_t K_;
  size_t capacity_ = 0;
  std::vector<size_t> limit_;  // (B): most tokens per sentence
  DecoderState state_;
  History history_;
  std::vector<std::vector<Finished>> finished_;  // (B)
  Rows alive_, next_;
  const bool penalize_;
  SpareCache* spare_;  // where the cache's memory goes when done, or null
  // Buffers reused by every step.
  std::vector<Candidate> top_;
  std::vector<Expansion> expansions_;
  std::vector<int> produced_;
  std::vector<int> live_;     // Prune's nodes
  std::vector<float> ruled_;  // (rows of a sentence, vocab): log-probs
                              // after the rules
};

}  // namespace

std::vector<NBest> BeamSearch(const Model& model, const EncoderOutput& enc,
                              const DecodingOptions& options,
                              const RunOptions& run, SpareCache* spare) {
  if (enc.batch == 0) return std::vector<NBest>();
  return Beams(model, enc, options, run, spare).Run();
}

}  // namespace heed
