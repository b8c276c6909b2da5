// Sinusoidal positional encoding, computed for any position:
//   PE(pos, 2i) = sin(pos / 10000^(2i/d)),  PE(pos, 2i+1) = cos(same).
#ifndef HEED_CORE_MODEL_POSITIONAL_H_
#define HEED_CORE_MODEL_POSITIONAL_H_

#include <cstddef>

namespace heed {

// out [d] = PE(pos, 0..d-1).
void PositionalEncoding(size_t pos, size_t d, float* out);

}  // namespace heed

#endif  // HEED_CORE_MODEL_POSITIONAL_H_
