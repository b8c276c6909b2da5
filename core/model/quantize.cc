#include "core/model/quantize.h"

#include <cstring>
#include <nlohmann/json.hpp>
#include <string>

#include "core/ops/quant.h"

namespace heed {
namespace {

bool IsMatrix(const TensorInfo& t) {
  const std::string suffix = ".weight";
  return t.shape.size() == 2 &&
         (t.dtype == DType::kF32 || t.dtype == DType::kF16) &&
         t.name.size() > suffix.size() &&
         t.name.compare(t.name.size() - suffix.size(), suffix.size(), suffix) ==
             0;
}

struct OutTensor {
  std::string name;
  DType dtype;
  std::vector<size_t> shape;
  std::vector<uint8_t> bytes;
};

}  // namespace

std::vector<uint8_t> QuantizeModel(const ModelFile& in) {
  std::vector<OutTensor> out;
  for (const TensorInfo& t : in.tensors()) {
    if (!IsMatrix(t)) {
      const uint8_t* p = in.data(t);
      out.push_back(
          {t.name, t.dtype, t.shape, std::vector<uint8_t>(p, p + t.bytes)});
      continue;
    }
    const size_t rows = t.shape[0], cols = t.shape[1];
    std::vector<float> values(t.elements());
    DecodeFloats(in, t, values.data());
    OutTensor q{t.name, DType::kI8, t.shape,
                std::vector<uint8_t>(t.elements())};
    OutTensor s{t.name + "_scale",
                DType::kF32,
                {rows},
                std::vector<uint8_t>(rows * sizeof(float))};
    std::vector<float> scales(rows);
    ops::QuantizeRows(values.data(), rows, cols,
                      reinterpret_cast<int8_t*>(q.bytes.data()), scales.data());
    std::memcpy(s.bytes.data(), scales.data(), rows * sizeof(float));
    out.push_back(std::move(q));
    out.push_back(std::move(s));
  }

  // Tensors 4-byte aligned in a data section that starts 8-byte aligned, so
  // F32 tensors are read in place.
  nlohmann::json header = nlohmann::json::object();
  nlohmann::json meta = nlohmann::json::object();
  for (const auto& [k, v] : in.metadata()) meta[k] = v;
  meta["quantization"] = "int8: matrices I8 with per-row F32 <name>_scale";
  header["__metadata__"] = meta;
  size_t at = 0;
  for (const OutTensor& t : out) {
    at = (at + 3) / 4 * 4;
    header[t.name] = {{"dtype", DTypeName(t.dtype)},
                      {"shape", t.shape},
                      {"data_offsets", {at, at + t.bytes.size()}}};
    at += t.bytes.size();
  }
  std::string text = header.dump();
  while ((8 + text.size()) % 8 != 0) text += ' ';
  std::vector<uint8_t> file(8 + text.size() + at, 0);
  const uint64_t n = text.size();
  for (int i = 0; i < 8; ++i) file[i] = static_cast<uint8_t>(n >> (8 * i));
  std::memcpy(file.data() + 8, text.data(), text.size());
  uint8_t* data = file.data() + 8 + text.size();
  for (const OutTensor& t : out) {
    const auto& range = header[t.name]["data_offsets"];
    if (!t.bytes.empty()) {
      std::memcpy(data + range[0].get<size_t>(), t.bytes.data(),
                  t.bytes.size());
    }
  }
  return file;
}

}  // namespace heed
