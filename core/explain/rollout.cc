#include "core/explain/rollout.h"

#include "core/error.h"

namespace heed {

std::vector<float> AttentionRollout(const std::vector<float>& attention,
                                    size_t layers, size_t heads, size_t S) {
  if (attention.size() != layers * heads * S * S || heads == 0) {
    throw Error("attention rollout: attention of " +
                std::to_string(attention.size()) + " values is not (" +
                std::to_string(layers) + ", " + std::to_string(heads) + ", " +
                std::to_string(S) + ", " + std::to_string(S) + ")");
  }
  std::vector<float> out(layers * S * S);
  std::vector<double> mixed(S * S), rolled(S * S), next(S * S);
  for (size_t l = 0; l < layers; ++l) {
    // Â = 0.5 · mean_h A + 0.5 · I
    for (size_t i = 0; i < S * S; ++i) {
      double sum = 0;
      for (size_t h = 0; h < heads; ++h) {
        sum += attention[(l * heads + h) * S * S + i];
      }
      mixed[i] = 0.5 * sum / static_cast<double>(heads);
    }
    for (size_t i = 0; i < S; ++i) mixed[i * S + i] += 0.5;
    if (l == 0) {
      rolled = mixed;
    } else {  // R_l = Â_l · R_{l-1}
      for (size_t i = 0; i < S; ++i) {
        for (size_t j = 0; j < S; ++j) {
          double v = 0;
          for (size_t m = 0; m < S; ++m)
            v += mixed[i * S + m] * rolled[m * S + j];
          next[i * S + j] = v;
        }
      }
      rolled.swap(next);
    }
    for (size_t i = 0; i < S * S; ++i) {
      out[l * S * S + i] = static_cast<float>(rolled[i]);
    }
  }
  return out;
}

}  // namespace heed
