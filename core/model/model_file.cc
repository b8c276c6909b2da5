#include "core/model/model_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <limits>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/model/strict_json.h"

namespace heed {

// Owns either a read-only mapping or a byte vector.
struct ModelFile::Storage {
  void* map = nullptr;
  size_t map_size = 0;
  std::vector<uint8_t> bytes;
  ~Storage() {
    if (map != nullptr) munmap(map, map_size);
  }
};

const char* DTypeName(DType t) {
  switch (t) {
    case DType::kF32:
      return "F32";
    case DType::kF16:
      return "F16";
    case DType::kI8:
      return "I8";
    case DType::kU8:
      return "U8";
  }
  return "?";
}

namespace {

// Refuses tensors whose bytes overlap; an empty tensor overlaps nothing,
// wherever it lies, so the verdict does not depend on the sort order.
void CheckNoOverlap(std::vector<TensorInfo> tensors, const std::string& where) {
  tensors.erase(
      std::remove_if(tensors.begin(), tensors.end(),
                     [](const TensorInfo& t) { return t.bytes == 0; }),
      tensors.end());
  std::sort(tensors.begin(), tensors.end(),
            [](const TensorInfo& a, const TensorInfo& b) {
              return a.offset < b.offset;
            });
  for (size_t i = 1; i < tensors.size(); ++i) {
    if (tensors[i].offset < tensors[i - 1].offset + tensors[i - 1].bytes) {
      throw Error(where + "tensors '" + tensors[i - 1].name + "' and '" +
                  tensors[i].name + "' overlap");
    }
  }
}

// One header entry as a tensor: dtype, shape (each size < 2^32, read as 64
// bits so that 32-bit builds give the same verdict) and data offsets within
// the data_size bytes that start at data_start.
TensorInfo ParseTensor(const std::string& name, const nlohmann::json& entry,
                       size_t data_start, size_t data_size,
                       const std::string& where) {
  const std::string at = where + "tensor '" + name + "': ";
  if (!entry.is_object() || !entry.contains("dtype") ||
      !entry.contains("shape") || !entry.contains("data_offsets")) {
    throw Error(at + "needs dtype, shape and data_offsets");
  }
  TensorInfo t;
  t.name = name;
  const auto& dtype = entry["dtype"];
  if (!dtype.is_string()) throw Error(at + "dtype is not a string");
  const std::string ds = dtype.get<std::string>();
  if (ds == "F32") {
    t.dtype = DType::kF32;
  } else if (ds == "F16") {
    t.dtype = DType::kF16;
  } else if (ds == "I8") {
    t.dtype = DType::kI8;
  } else if (ds == "U8") {
    t.dtype = DType::kU8;
  } else {
    throw Error(at + "unsupported dtype '" + ds + "'");
  }
  const auto& shape = entry["shape"];
  if (!shape.is_array() || shape.size() > 8) {
    throw Error(at + "shape must be an array of at most 8 sizes");
  }
  size_t elements = 1;
  for (const auto& s : shape) {
    if (!s.is_number_unsigned()) throw Error(at + "shape holds a non-size");
    const uint64_t dim = s.get<uint64_t>();
    if (dim > std::numeric_limits<uint32_t>::max() ||
        (dim != 0 && elements > std::numeric_limits<uint32_t>::max() / dim)) {
      throw Error(at + "shape is too large");
    }
    elements *= dim;
    t.shape.push_back(dim);
  }
  const auto& offsets = entry["data_offsets"];
  if (!offsets.is_array() || offsets.size() != 2 ||
      !offsets[0].is_number_unsigned() || !offsets[1].is_number_unsigned()) {
    throw Error(at + "data_offsets must be [begin, end]");
  }
  const uint64_t begin = offsets[0].get<uint64_t>();
  const uint64_t end = offsets[1].get<uint64_t>();
  if (begin > end || end > data_size) {
    throw Error(at + "data_offsets [" + std::to_string(begin) + ", " +
                std::to_string(end) + "] lie outside the " +
                std::to_string(data_size) + " data bytes");
  }
  if (end - begin != elements * DTypeSize(t.dtype)) {
    throw Error(at + "holds " + std::to_string(end - begin) +
                " bytes but its shape needs " +
                std::to_string(elements * DTypeSize(t.dtype)));
  }
  t.offset = data_start + begin;
  t.bytes = end - begin;
  return t;
}

}  // namespace

size_t DTypeSize(DType t) {
  switch (t) {
    case DType::kF32:
      return 4;
    case DType::kF16:
      return 2;
    case DType::kI8:
    case DType::kU8:
      return 1;
  }
  return 1;
}

namespace {

// IEEE half to single precision, including subnormals, inf and NaN.
float HalfToFloat(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  uint32_t exp = (h >> 10) & 0x1Fu;
  uint32_t mant = h & 0x3FFu;
  uint32_t bits;
  if (exp == 0x1F) {
    bits = sign | 0x7F800000u | (mant << 13);
  } else if (exp != 0) {
    bits = sign | ((exp + 112) << 23) | (mant << 13);
  } else if (mant == 0) {
    bits = sign;
  } else {  // subnormal: normalise
    exp = 113;
    while ((mant & 0x400u) == 0) {
      mant <<= 1;
      --exp;
    }
    bits = sign | (exp << 23) | ((mant & 0x3FFu) << 13);
  }
  float f;
  std::memcpy(&f, &bits, sizeof(f));
  return f;
}

}  // namespace

bool DecodeFloats(const ModelFile& file, const TensorInfo& t, float* out) {
  const uint8_t* data = file.data(t);
  const size_t n = t.elements();
  if (t.dtype == DType::kF32) {
    std::memcpy(out, data, n * sizeof(float));
    return true;
  }
  if (t.dtype == DType::kF16) {
    for (size_t i = 0; i < n; ++i) {
      uint16_t h;
      std::memcpy(&h, data + 2 * i, 2);
      out[i] = HalfToFloat(h);
    }
    return true;
  }
  return false;
}

size_t TensorInfo::elements() const {
  size_t n = 1;
  for (size_t s : shape) n *= s;
  return n;
}

ModelFile::ModelFile(ModelFile&&) noexcept = default;
ModelFile& ModelFile::operator=(ModelFile&&) noexcept = default;
ModelFile::~ModelFile() = default;

ModelFile ModelFile::Open(const std::string& path) {
  // O_NONBLOCK: a FIFO must not block the open; it is refused below.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    throw Error("model file '" + path +
                "': cannot open: " + std::strerror(errno));
  }
  struct stat st {};
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    throw Error("model file '" + path + "': not a regular file");
  }
  ModelFile file;
  file.source_ = path;
  file.storage_ = std::make_unique<Storage>();
  file.size_ = static_cast<size_t>(st.st_size);
  if (file.size_ > 0) {
    void* map = mmap(nullptr, file.size_, PROT_READ, MAP_PRIVATE, fd, 0);
    if (map == MAP_FAILED) {
      ::close(fd);
      throw Error("model file '" + path +
                  "': cannot map: " + std::strerror(errno));
    }
    file.storage_->map = map;
    file.storage_->map_size = file.size_;
    file.base_ = static_cast<const uint8_t*>(map);
  }
  ::close(fd);
  file.Parse();
  return file;
}

ModelFile ModelFile::FromBytes(std::vector<uint8_t> bytes) {
  ModelFile file;
  file.source_ = "<bytes>";
  file.storage_ = std::make_unique<Storage>();
  file.storage_->bytes = std::move(bytes);
  file.base_ = file.storage_->bytes.data();
  file.size_ = file.storage_->bytes.size();
  file.Parse();
  return file;
}

const TensorInfo* ModelFile::Find(const std::string& name) const {
  auto it = std::lower_bound(
      tensors_.begin(), tensors_.end(), name,
      [](const TensorInfo& t, const std::string& n) { return t.name < n; });
  if (it == tensors_.end() || it->name != name) return nullptr;
  return &*it;
}

void ModelFile::Parse() {
  const std::string where = "model file '" + source_ + "': ";
  if (size_ < 8) {
    throw Error(where + "too short (" + std::to_string(size_) +
                " bytes) to hold a header");
  }
  uint64_t header_len = 0;
  for (int i = 7; i >= 0; --i) header_len = (header_len << 8) | base_[i];
  if (header_len < 2 || header_len > size_ - 8) {
    throw Error(where + "header length " + std::to_string(header_len) +
                " does not fit in the file of " + std::to_string(size_) +
                " bytes (truncated or not a safetensors file)");
  }
  const size_t data_start = 8 + header_len;
  const size_t data_size = size_ - data_start;
  nlohmann::json header;
  try {
    header = ParseStrictJson(base_ + 8, base_ + data_start);
  } catch (const nlohmann::json::exception& e) {
    throw Error(where + "header is not valid JSON: " + e.what());
  } catch (const Error& e) {
    throw Error(where + "header " + e.what());
  }
  if (!header.is_object()) throw Error(where + "header is not a JSON object");

  for (auto it = header.begin(); it != header.end(); ++it) {
    const std::string& name = it.key();
    const nlohmann::json& entry = it.value();
    if (name == "__metadata__") {
      if (!entry.is_object()) throw Error(where + "__metadata__ not an object");
      for (auto m = entry.begin(); m != entry.end(); ++m) {
        if (!m.value().is_string()) {
          throw Error(where + "metadata '" + m.key() + "' is not a string");
        }
        metadata_[m.key()] = m.value().get<std::string>();
      }
      continue;
    }
    tensors_.push_back(ParseTensor(name, entry, data_start, data_size, where));
  }
  CheckNoOverlap(tensors_, where);
  std::sort(
      tensors_.begin(), tensors_.end(),
      [](const TensorInfo& a, const TensorInfo& b) { return a.name < b.name; });
}

}  // namespace heed
