// A model file in the safetensors layout: an 8-byte little-endian header
// length, a JSON header naming every tensor's dtype, shape and byte range,
// then the raw little-endian tensor bytes (models/FORMAT.md).
//
// Opening validates everything the header claims against the file, so code
// that reads tensors afterwards never goes out of bounds.
#ifndef HEED_CORE_MODEL_MODEL_FILE_H_
#define HEED_CORE_MODEL_MODEL_FILE_H_

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace heed {

// The format version this engine reads (metadata "format_version").
constexpr int kFormatVersion = 1;

enum class DType { kF32, kF16, kI8, kU8 };

const char* DTypeName(DType t);
size_t DTypeSize(DType t);

struct TensorInfo {
  std::string name;
  DType dtype = DType::kF32;
  std::vector<size_t> shape;
  size_t offset = 0;  // byte offset of the data from the start of the file
  size_t bytes = 0;   // size of the data in bytes

  size_t elements() const;  // product of shape (1 for a scalar)
};

class ModelFile;

// out [t.elements()] = the values of an F32 or F16 tensor (false for any
// other dtype, out untouched).
bool DecodeFloats(const ModelFile& file, const TensorInfo& t, float* out);

class ModelFile {
 public:
  // Maps the file read-only (zero-copy). Throws heed::Error.
  static ModelFile Open(const std::string& path);
  // Takes the bytes of a whole file. Throws heed::Error.
  static ModelFile FromBytes(std::vector<uint8_t> bytes);

  ModelFile(ModelFile&&) noexcept;
  ModelFile& operator=(ModelFile&&) noexcept;
  ~ModelFile();

  const std::string& source() const { return source_; }  // path or "<bytes>"
  size_t size() const { return size_; }
  const std::map<std::string, std::string>& metadata() const {
    return metadata_;
  }
  const std::vector<TensorInfo>& tensors() const { return tensors_; }
  // nullptr when there is no such tensor.
  const TensorInfo* Find(const std::string& name) const;
  const uint8_t* data(const TensorInfo& t) const { return base_ + t.offset; }

 private:
  ModelFile() = default;
  void Parse();

  struct Storage;
  std::unique_ptr<Storage> storage_;  // keeps base_ alive
  const uint8_t* base_ = nullptr;
  size_t size_ = 0;
  std::string source_;
  std::map<std::string, std::string> metadata_;
  std::vector<TensorInfo> tensors_;  // sorted by name
};

}  // namespace heed

#endif  // HEED_CORE_MODEL_MODEL_FILE_H_
