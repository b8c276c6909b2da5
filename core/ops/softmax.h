// Softmax and log-softmax over one row of scores.
#ifndef HEED_CORE_OPS_SOFTMAX_H_
#define HEED_CORE_OPS_SOFTMAX_H_

#include <cstddef>

namespace heed::ops {

// x [n] <- softmax(x + mask), max-subtracted. mask [n] is additive and may be
// nullptr or hold -inf. A row whose every entry is -inf becomes all zeros;
// entries that are -inf become exactly 0.
void Softmax(float* x, const float* mask, size_t n);

// x [n] <- log(softmax(x)). Entries of -inf stay -inf.
void LogSoftmax(float* x, size_t n);

}  // namespace heed::ops

#endif  // HEED_CORE_OPS_SOFTMAX_H_
