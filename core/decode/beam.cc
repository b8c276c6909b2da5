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

}  // namespace

std::vector<NBest> BeamSearch(const Model& model, const EncoderOutput& enc,
                              const DecodingOptions& options,
                              const RunOptions& run) {
  const ModelConfig& c = model.config();
  const size_t B = enc.batch;
  const size_t K = options.beam_size;
  std::vector<NBest> results(B);
  if (B == 0) return results;
  size_t capacity = 0;
  const std::vector<size_t> limit = TargetLimits(enc, options, &capacity);

  // One row per sentence at first; room for K per sentence.
  std::vector<size_t> rows(B);
  std::iota(rows.begin(), rows.end(), 0);
  DecoderState state = model.StartDecoding(enc, rows, capacity, run, B * K);

  History history(model, run.capture_attention);
  std::vector<int> row_node(B, -1);
  std::vector<float> row_log_prob(B, 0.0f);
  std::vector<int> tokens(B, c.bos_id);
  std::vector<std::vector<Finished>> finished(B);
  // Buffers reused by every step.
  std::vector<Candidate> top;
  std::vector<Expansion> expansions;
  std::vector<size_t> parents;
  std::vector<int> next_tokens, next_nodes;
  std::vector<float> next_log_probs;
  std::vector<int> produced;
  const bool penalize = PenalizesRepeats(options);

  while (state.rows > 0) {
    model.Step(state, tokens.data(), run);
    const size_t length = state.step;  // tokens per hypothesis after this step
    parents.clear();
    next_tokens.clear();
    next_nodes.clear();
    next_log_probs.clear();
    for (size_t r = 0; r < state.rows;) {
      const size_t b = state.sentence[r];
      size_t end = r;
      while (end < state.rows && state.sentence[end] == b) ++end;
      expansions.clear();
      for (size_t row = r; row < end; ++row) {
        float* log_probs = &state.log_probs[row * c.target_vocab];
        if (penalize) {
          history.Tokens(row_node[row], &produced);
          PenalizeRepeats(produced, options, log_probs, c.target_vocab);
        }
        TopK(log_probs, c.target_vocab, 2 * K, c.pad_id, &top);
        for (const Candidate& cand : top) {
          if (std::isinf(cand.log_prob)) continue;  // banned
          expansions.push_back(
              Expansion{row_log_prob[row] + cand.log_prob, row, cand.token});
        }
      }
      std::stable_sort(expansions.begin(), expansions.end(),
                       [](const Expansion& x, const Expansion& y) {
                         return x.log_prob > y.log_prob;
                       });
      const bool at_limit = length >= limit[b];
      const float penalty = LengthPenalty(length, options.length_penalty);
      size_t kept = 0;
      const size_t alive_begin = parents.size();
      for (size_t i = 0; i < expansions.size() && kept < K; ++i) {
        const Expansion& e = expansions[i];
        const bool ends = e.token == c.eos_id;
        if (ends && i >= K) continue;
        const int node =
            history.Add(row_node[e.row], e.token, e.log_prob, state, e.row);
        if (ends || at_limit) {
          finished[b].push_back(Finished{e.log_prob / penalty, node});
          if (!ends) ++kept;
          continue;
        }
        parents.push_back(e.row);
        next_tokens.push_back(e.token);
        next_nodes.push_back(node);
        next_log_probs.push_back(e.log_prob);
        ++kept;
      }
      if (at_limit || finished[b].size() >= K) {  // this sentence is done
        parents.resize(alive_begin);
        next_tokens.resize(alive_begin);
        next_nodes.resize(alive_begin);
        next_log_probs.resize(alive_begin);
      }
      r = end;
    }
    model.Reorder(state, parents);
    tokens.swap(next_tokens);
    row_node.swap(next_nodes);
    row_log_prob.swap(next_log_probs);
  }

  for (size_t b = 0; b < B; ++b) {
    std::stable_sort(
        finished[b].begin(), finished[b].end(),
        [](const Finished& x, const Finished& y) { return x.score > y.score; });
    for (size_t i = 0; i < finished[b].size() && i < options.nbest; ++i) {
      results[b].push_back(history.Backtrack(
          finished[b][i].node, finished[b][i].score, enc.lengths[b]));
    }
  }
  return results;
}

}  // namespace heed
