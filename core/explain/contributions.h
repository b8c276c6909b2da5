// Norm-based contributions (Kobayashi, Kuribayashi, Yokoi, Inui, EMNLP 2020,
// "Attention is Not Only a Weight"): what token j actually adds to token i
// through a head is α_ij · f_h(x_j), f_h(x) = (x W_V + b_V)^h W_O^h; its size
// ‖α_ij f_h(x_j)‖ = α_ij ‖f_h(x_j)‖, since α_ij ≥ 0. A head can put much
// weight on a token whose transformed vector is small.
#ifndef HEED_CORE_EXPLAIN_CONTRIBUTIONS_H_
#define HEED_CORE_EXPLAIN_CONTRIBUTIONS_H_

#include <cstddef>
#include <vector>

namespace heed {

// attention (layers, heads, rows, cols) and norms (layers, heads, cols) of
// ‖f_h(x_j)‖: returns (layers, heads, rows, cols) of α_ij · ‖f_h(x_j)‖.
std::vector<float> NormWeighted(const std::vector<float>& attention,
                                const std::vector<float>& norms, size_t layers,
                                size_t heads, size_t rows, size_t cols);

}  // namespace heed

#endif  // HEED_CORE_EXPLAIN_CONTRIBUTIONS_H_
