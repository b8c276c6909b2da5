// Attention rollout (Abnar & Zuidema, ACL 2020, "Quantifying Attention Flow
// in Transformers"): how much each token's final encoder state draws on each
// input token, following attention through the layers and the residual
// connections.
#ifndef HEED_CORE_EXPLAIN_ROLLOUT_H_
#define HEED_CORE_EXPLAIN_ROLLOUT_H_

#include <cstddef>
#include <vector>

namespace heed {

// attention: (layers, heads, S, S) self-attention of one sentence. Per layer
// l, Â_l = 0.5 · mean over heads of A_l + 0.5 · I (the residual), and
// R_l = Â_l · R_{l-1} with R_0 = Â_0. Returns (layers, S, S): R_l[i][j] is
// how much token i after layer l draws on input token j; every row sums
// to 1.
std::vector<float> AttentionRollout(const std::vector<float>& attention,
                                    size_t layers, size_t heads, size_t S);

}  // namespace heed

#endif  // HEED_CORE_EXPLAIN_ROLLOUT_H_
