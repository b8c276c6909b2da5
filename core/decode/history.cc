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
  if (capture_) {
    const StepAttention a = model_.LastStepAttention(state, row);
    node.self.resize(layers_ * heads_ * a.self_len);
    node.cross.resize(layers_ * heads_ * a.cross_len);
    for (size_t lh = 0; lh < layers_ * heads_; ++lh) {
      const float* self = a.self + lh * a.self_stride;
      std::copy(self, self + a.self_len, node.self.data() + lh * a.self_len);
      const float* cross = a.cross + lh * a.cross_stride;
      std::copy(cross, cross + a.cross_len,
                node.cross.data() + lh * a.cross_len);
    }
    TopK(ranked != nullptr ? ranked : &state.log_probs[row * vocab_], vocab_,
         kAlternatives, -1, &node.alternatives);
  }
  if (norms_) {
    const float* n = model_.LastStepSublayerNorms(state, row);
    node.norms.assign(n, n + layers_ * 4);
  }
  if (values_) {
    const float* v = model_.LastStepValueNorms(state, row);
    node.values.assign(v, v + layers_ * heads_);
  }
  if (lens_k_ > 0) {
    const float* x = model_.LastStepHidden(state, row);
    node.hidden.assign(x, x + layers_ * model_.config().d_model);
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
      model_.LensLogProbs(&n.hidden[l * d], log_probs.data());
      TopK(log_probs.data(), vocab_, lens_k_, -1, &top);
      std::copy(top.begin(), top.end(), &h->lens[(l * T + i) * lens_k_]);
      h->lens_token_probs[l * T + i] = std::exp(log_probs[n.token]);
    }
  }
}

Hypothesis History::Backtrack(int node, float score,
                              size_t source_length) const {
  std::vector<int> chain;
  for (int n = node; n >= 0; n = nodes_[n].parent) chain.push_back(n);
  std::reverse(chain.begin(), chain.end());
  Hypothesis h;
  h.score = score;
  h.log_prob = nodes_[node].log_prob;
  const size_t T = chain.size();
  for (int n : chain) h.tokens.push_back(nodes_[n].token);
  if (confidence_) {
    for (int n : chain) {
      h.token_probs.push_back(nodes_[n].prob);
      h.entropies.push_back(nodes_[n].entropy);
    }
  }
  if (lens_k_ > 0) AddLens(chain, &h);
  if (norms_) {
    h.sublayer_norms.resize(layers_ * T * 4);
    for (size_t i = 0; i < T; ++i) {
      for (size_t l = 0; l < layers_; ++l) {
        std::copy_n(&nodes_[chain[i]].norms[l * 4], 4,
                    &h.sublayer_norms[(l * T + i) * 4]);
      }
    }
  }
  if (values_) {  // step i read decoder input i
    h.decoder_value_norms.resize(layers_ * heads_ * T);
    for (size_t i = 0; i < T; ++i) {
      for (size_t lh = 0; lh < layers_ * heads_; ++lh) {
        h.decoder_value_norms[lh * T + i] = nodes_[chain[i]].values[lh];
      }
    }
  }
  if (!capture_) return h;
  const size_t S = source_length;
  h.decoder_attention.assign(layers_ * heads_ * T * T, 0.0f);
  h.cross_attention.assign(layers_ * heads_ * T * S, 0.0f);
  for (size_t i = 0; i < T; ++i) {
    const Node& n = nodes_[chain[i]];
    for (size_t lh = 0; lh < layers_ * heads_; ++lh) {
      const float* self = n.self.data() + lh * (i + 1);
      std::copy(self, self + i + 1,
                h.decoder_attention.data() + (lh * T + i) * T);
      const float* cross = n.cross.data() + lh * S;
      std::copy(cross, cross + S, h.cross_attention.data() + (lh * T + i) * S);
    }
    h.alternatives.push_back(n.alternatives);
  }
  return h;
}

}  // namespace heed
