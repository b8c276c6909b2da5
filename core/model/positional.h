// Sinusoidal positional encoding, computed for any position, in one of two
// layouts (ModelConfig::positions):
//   interleaved (the paper): PE(pos, 2i) = sin(pos / 10000^(2i/d)),
//                            PE(pos, 2i+1) = cos(same);
//   halves (tensor2tensor, Marian), h = d/2:
//                            PE(pos, i) = sin(pos / 10000^(i/(h-1))),
//                            PE(pos, h+i) = cos(same).
#ifndef HEED_CORE_MODEL_POSITIONAL_H_
#define HEED_CORE_MODEL_POSITIONAL_H_

#include <cstddef>
#include <vector>

#include "core/model/config.h"
#include "core/model/run_options.h"

namespace heed {

// out [d] = PE(pos, 0..d-1).
void PositionalEncoding(size_t pos, size_t d, PositionLayout layout,
                        float* out);

// What a token at position pos is told of it: PE(pos), or zeros when
// positions are off (shuffled source positions are picked by the caller).
void TokenPosition(Positions positions, PositionLayout layout, size_t pos,
                   size_t d, float* out);

// A fixed permutation of 0..n-1 for each n (Fisher–Yates driven by
// SplitMix64 seeded with n), the same on every platform: the positions a
// source of n tokens is given when shuffled. For n > 1 it moves at least one
// position.
std::vector<size_t> ShuffledPositions(size_t n);

}  // namespace heed

#endif  // HEED_CORE_MODEL_POSITIONAL_H_
