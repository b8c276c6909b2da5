// int8 model files: every weight matrix to 8 bits, one scale per row.
#ifndef HEED_CORE_MODEL_QUANTIZE_H_
#define HEED_CORE_MODEL_QUANTIZE_H_

#include <cstdint>
#include <vector>

#include "core/model/model_file.h"

namespace heed {

// The bytes of a model file equal to `in` but for its matrices (2-D F32 or
// F16 tensors named *.weight: linear layers and embeddings), which become
// I8 with an F32 tensor <name>_scale of per-row scales (models/FORMAT.md).
// Everything else (biases, norms, tokenisers, metadata) is copied as it is.
std::vector<uint8_t> QuantizeModel(const ModelFile& in);

}  // namespace heed

#endif  // HEED_CORE_MODEL_QUANTIZE_H_
