#include "core/decode/history.h"

#include <algorithm>
#include <cmath>

#include "core/ops/scan.h"

namespace heed {

void TopK(const float* x, size_t n, size_t k, int exclude,
          std::vector<Candidate>* out) {
  out->clear();
  if (k == 0) return;
  for (size_t i = 0; i < n; ++i) {
    if (out->size() == k) {  // only what beats the k-th best matters now
      i += ops::FirstAbove(x + i, n - i, out->back().log_prob);
      if (i == n) break;
    }
    if (static_cast<int>(i) == exclude) continue;
    const float v = x[i];
    // Strictly greater moves ahead, so among equals the lower index stays
    // first.
    auto pos = std::upper_bound(
        out->begin(), out->end(), v,
        [](float value, const Candidate& c) { return value > c.log_prob; });
    out->insert(pos, Candidate{static_cast<int>(i), v});
    if (out->size() > k) out->pop_back();
  }
}

float Entropy(const float* log_probs, size_t n) {
  double h = 0;
  for (size_t i = 0; i < n; ++i) {
    if (std::isinf(log_probs[i])) continue;  // p = 0 adds nothing
    h -= std::exp(static_cast<double>(log_probs[i])) * log_probs[i];
  }
  return static_cast<float>(h);
}

int History::Add(int parent, int token, float log_prob,
                 const DecoderState& state, size_t row, const float* ranked) {
  Node node;
  node.parent = parent;
  node.token = token;
  node.log_prob = log_prob;
  node.length = parent < 0 ? 1 : nodes_[parent].length + 1;
  model_.CaptureStep(state, row, &node.step);
  if (capture_) {
    TopK(ranked != nullptr ? ranked : &state.log_probs[row * vocab_], vocab_,
         kAlternatives, -1, &node.alternatives);
  }
  if (confidence_) {
    const float* lp = &state.log_probs[row * vocab_];
    node.prob = std::exp(lp[token]);
    node.entropy = RowEntropy(state, row);
  }
  nodes_.push_back(std::move(node));
  return static_cast<int>(nodes_.size()) - 1;
}

float History::RowEntropy(const DecoderState& state, size_t row) {
  if (entropy_step_ != state.step) {
    entropy_step_ = state.step;
    entropies_.assign(state.rows, std::nanf(""));
  }
  if (std::isnan(entropies_[row])) {
    entropies_[row] = Entropy(&state.log_probs[row * vocab_], vocab_);
  }
  return entropies_[row];
}

void History::Tokens(int node, std::vector<int>* out) const {
  out->clear();
  for (int n = node; n >= 0; n = nodes_[n].parent) {
    out->push_back(nodes_[n].token);
  }
  std::reverse(out->begin(), out->end());
}

void History::AddLens(const std::vector<int>& chain, Hypothesis* h) const {
  const size_t T = chain.size();
  const size_t d = model_.config().d_model;
  h->lens.resize(layers_ * T * lens_k_);
  h->lens_token_probs.resize(layers_ * T);
  std::vector<float> log_probs(vocab_);
  std::vector<Candidate> top;
  for (size_t i = 0; i < T; ++i) {
    const Node& n = nodes_[chain[i]];
    for (size_t l = 0; l < layers_; ++l) {
      model_.LensLogProbs(&n.step.hidden[l * d], log_probs.data());
      TopK(log_probs.data(), vocab_, lens_k_, -1, &top);
      std::copy(top.begin(), top.end(), &h->lens[(l * T + i) * lens_k_]);
      h->lens_token_probs[l * T + i] = std::exp(log_probs[n.token]);
    }
  }
}

void History::Prune(const std::vector<int>& live) {
  if (!captures_) return;
  on_path_.assign(nodes_.size(), 0);
  for (int n : live) {
    for (; n >= 0 && on_path_[n] == 0; n = nodes_[n].parent) on_path_[n] = 1;
  }
  for (size_t n = 0; n < nodes_.size(); ++n) {
    if (on_path_[n] != 0) continue;
    nodes_[n].step = StepCapture();
    std::vector<Candidate>().swap(nodes_[n].alternatives);
  }
}

size_t History::CapturedFloats() const {
  size_t n = 0;
  for (const Node& node : nodes_) {
    const StepCapture& c = node.step;
    n += c.self.size() + c.cross.size() + c.hidden.size() + c.norms.size() +
         c.values.size();
  }
  return n;
}

Hypothesis History::Backtrack(int node, float score, size_t source_length,
                              bool maps) {
  std::vector<int> chain;
  for (int n = node; n >= 0; n = nodes_[n].parent) chain.push_back(n);
  std::reverse(chain.begin(), chain.end());
  Hypothesis h;
  h.score = score;
  h.log_prob = nodes_[node].log_prob;
  for (int n : chain) h.tokens.push_back(nodes_[n].token);
  if (confidence_) {
    for (int n : chain) {
      h.token_probs.push_back(nodes_[n].prob);
      h.entropies.push_back(nodes_[n].entropy);
    }
  }
  if (!maps) return h;
  if (lens_k_ > 0) AddLens(chain, &h);
  std::vector<StepCapture*> steps(chain.size());
  for (size_t i = 0; i < chain.size(); ++i) steps[i] = &nodes_[chain[i]].step;
  h.maps = StackSteps(steps, layers_, heads_, source_length);
  if (capture_) {
    for (int n : chain) {
      h.alternatives.push_back(std::move(nodes_[n].alternatives));
    }
  }
  return h;
}

}  // namespace heed
