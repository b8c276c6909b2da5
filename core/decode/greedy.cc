// Greedy search: every sentence of the batch keeps one row; a row leaves the
// batch when it produces EOS or reaches its length limit.
#include <algorithm>
#include <numeric>

#include "core/decode/history.h"
#include "core/decode/repetition.h"
#include "core/decode/search.h"

namespace heed {

std::vector<NBest> GreedySearch(const Model& model, const EncoderOutput& enc,
                                const DecodingOptions& options,
                                const RunOptions& run, SpareCache* spare) {
  const ModelConfig& c = model.config();
  const size_t B = enc.batch;
  std::vector<NBest> results(B);
  if (B == 0) return results;
  size_t capacity = 0;
  const std::vector<size_t> limit = TargetLimits(enc, options, &capacity);

  std::vector<size_t> rows(B);  // sentence of each row
  std::iota(rows.begin(), rows.end(), 0);
  DecoderState state = model.StartDecoding(enc, rows, capacity, run, 0, spare);
  History history(model, options, run);
  std::vector<int> last(B, -1);  // last node of each row's hypothesis
  std::vector<int> tokens(B, c.bos_id);
  // Buffers reused by every step: the loop allocates nothing once warm.
  std::vector<Candidate> best;
  std::vector<size_t> keep;
  std::vector<int> next, next_last, produced;
  std::vector<float> ruled;  // a row's log-probs after the rules
  const bool penalize = PenalizesRepeats(options);
  while (state.rows > 0) {
    StopIfCancelled(options);
    model.Step(state, tokens.data(), run);
    keep.clear();
    next.clear();
    next_last.clear();
    for (size_t r = 0; r < state.rows; ++r) {
      const size_t b = state.sentence[r];
      const float* scores = &state.log_probs[r * c.target_vocab];
      const int forced = ForcedToken(options, state.step - 1);
      if (forced >= 0) {  // the model's own log-prob, no rule applies
        best.assign(1, Candidate{forced, scores[forced]});
      } else if (penalize) {  // on a copy: the history keeps the model's own
        history.Tokens(last[r], &produced);
        ruled.assign(scores, scores + c.target_vocab);
        PenalizeRepeats(produced, options, ruled.data(), c.target_vocab);
        scores = ruled.data();
      }
      if (forced < 0) TopK(scores, c.target_vocab, 1, c.pad_id, &best);
      const int parent = last[r];
      const float cum =
          (parent < 0 ? 0.0f : history.log_prob(parent)) + best[0].log_prob;
      const int node = history.Add(parent, best[0].token, cum, state, r,
                                   penalize && forced < 0 ? scores : nullptr);
      if (best[0].token == c.eos_id || history.length(node) >= limit[b]) {
        results[b].push_back(history.Backtrack(
            node,
            cum / LengthPenalty(history.length(node), options.length_penalty),
            enc.lengths[b], true));
      } else {
        keep.push_back(r);
        next.push_back(best[0].token);
        next_last.push_back(node);
      }
    }
    if (keep.size() != state.rows) model.Reorder(state, keep);
    tokens.swap(next);
    last.swap(next_last);
  }
  Model::KeepCache(state, spare);
  return results;
}

}  // namespace heed
