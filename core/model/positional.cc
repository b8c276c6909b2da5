#include "core/model/positional.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace heed {

void PositionalEncoding(size_t pos, size_t d, PositionLayout layout,
                        float* out) {
  // In double: at large positions the float angle would lose the phase.
  const double p = static_cast<double>(pos);
  if (layout == PositionLayout::kHalves) {
    const size_t h = d / 2;
    const double step = std::log(10000.0) / static_cast<double>(h - 1);
    for (size_t i = 0; i < h; ++i) {
      const double angle = p * std::exp(-step * static_cast<double>(i));
      out[i] = static_cast<float>(std::sin(angle));
      out[h + i] = static_cast<float>(std::cos(angle));
    }
    return;
  }
  for (size_t i = 0; i < d; i += 2) {
    const double freq =
        std::exp(-std::log(10000.0) * static_cast<double>(i) / d);
    const double angle = p * freq;
    out[i] = static_cast<float>(std::sin(angle));
    if (i + 1 < d) out[i + 1] = static_cast<float>(std::cos(angle));
  }
}

void TokenPosition(Positions positions, PositionLayout layout, size_t pos,
                   size_t d, float* out) {
  if (positions == Positions::kOff) {
    std::fill_n(out, d, 0.0f);
  } else {
    PositionalEncoding(pos, d, layout, out);
  }
}

std::vector<size_t> ShuffledPositions(size_t n) {
  std::vector<size_t> p(n);
  for (size_t i = 0; i < n; ++i) p[i] = i;
  uint64_t state = n;
  auto next = [&state] {  // SplitMix64
    uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  };
  for (size_t i = n; i > 1; --i) std::swap(p[i - 1], p[next() % i]);
  // Fisher–Yates may leave every token where it was: then rotate by one.
  bool moved = false;
  for (size_t i = 0; i < n; ++i) moved = moved || p[i] != i;
  if (!moved && n > 1) std::rotate(p.begin(), p.begin() + 1, p.end());
  return p;
}

}  // namespace heed
