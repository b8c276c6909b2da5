#include "core/explain/contributions.h"

#include <string>

#include "core/error.h"

namespace heed {

std::vector<float> NormWeighted(const std::vector<float>& attention,
                                const std::vector<float>& norms, size_t layers,
                                size_t heads, size_t rows, size_t cols) {
  if (attention.size() != layers * heads * rows * cols ||
      norms.size() != layers * heads * cols) {
    throw Error("contributions: " + std::to_string(attention.size()) +
                " attention values and " + std::to_string(norms.size()) +
                " norms do not fit (" + std::to_string(layers) + ", " +
                std::to_string(heads) + ", " + std::to_string(rows) + ", " +
                std::to_string(cols) + ")");
  }
  std::vector<float> out(attention.size());
  for (size_t lh = 0; lh < layers * heads; ++lh) {
    const float* n = &norms[lh * cols];
    for (size_t i = 0; i < rows; ++i) {
      const size_t at = (lh * rows + i) * cols;
      for (size_t j = 0; j < cols; ++j) out[at + j] = attention[at + j] * n[j];
    }
  }
  return out;
}

}  // namespace heed
