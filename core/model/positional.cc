#include "core/model/positional.h"

#include <cmath>

namespace heed {

void PositionalEncoding(size_t pos, size_t d, float* out) {
  // In double: at large positions the float angle would lose the phase.
  for (size_t i = 0; i < d; i += 2) {
    const double freq =
        std::exp(-std::log(10000.0) * static_cast<double>(i) / d);
    const double angle = static_cast<double>(pos) * freq;
    out[i] = static_cast<float>(std::sin(angle));
    if (i + 1 < d) out[i + 1] = static_cast<float>(std::cos(angle));
  }
}

}  // namespace heed
