#include "core/text/spm_check.h"

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "core/error.h"

namespace heed {
namespace {

// Field numbers of sentencepiece_model.proto.
constexpr uint64_t kPieces = 1;            // ModelProto.pieces
constexpr uint64_t kPieceText = 1;         // SentencePiece.piece
constexpr uint64_t kNormalizerSpec = 3;    // ModelProto.normalizer_spec
constexpr uint64_t kDenormalizerSpec = 5;  // ModelProto.denormalizer_spec
constexpr uint64_t kCharsMap = 2;  // NormalizerSpec.precompiled_charsmap

bool ReadVarint(std::string_view* in, uint64_t* value) {
  *value = 0;
  for (int shift = 0; shift < 64 && !in->empty(); shift += 7) {
    const auto byte = static_cast<uint8_t>(in->front());
    in->remove_prefix(1);
    *value |= static_cast<uint64_t>(byte & 0x7F) << shift;
    if ((byte & 0x80) == 0) return true;
  }
  return false;
}

// Calls visit(field, bytes) for each length-delimited field of a protobuf
// message and skips the others; throws on malformed framing.
template <typename Visit>
void ForEachBytesField(std::string_view msg, const std::string& what,
                       const Visit& visit) {
  const Error malformed(what +
                        ": not a SentencePiece model: malformed protobuf");
  while (!msg.empty()) {
    uint64_t key = 0;
    uint64_t value = 0;
    if (!ReadVarint(&msg, &key)) throw malformed;
    switch (key & 7) {
      case 0:
        if (!ReadVarint(&msg, &value)) throw malformed;
        break;
      case 1:
      case 5: {
        const size_t size = (key & 7) == 1 ? 8 : 4;
        if (msg.size() < size) throw malformed;
        msg.remove_prefix(size);
        break;
      }
      case 2:
        if (!ReadVarint(&msg, &value) || value > msg.size()) throw malformed;
        visit(key >> 3, msg.substr(0, value));
        msg.remove_prefix(value);
        break;
      default:  // groups (deprecated) and invalid wire types
        throw malformed;
    }
  }
}

// A darts-clone unit (third_party/darts_clone/darts.h, DoubleArrayUnit).
struct DartsUnit {
  uint32_t bits;
  bool has_leaf() const { return ((bits >> 8) & 1) == 1; }
  uint32_t value() const { return bits & ((1U << 31) - 1); }
  uint32_t label() const { return bits & ((1U << 31) | 0xFF); }
  uint32_t offset() const { return (bits >> 10) << ((bits & (1U << 9)) >> 6); }
};

// Walks every state reachable from the root as commonPrefixSearch does and
// checks that each unit it could read, for any input byte, lies inside the
// array and that each value indexes the NUL-terminated string table.
void CheckDoubleArray(const std::vector<DartsUnit>& units, size_t strings_size,
                      const std::string& what) {
  const size_t n = units.size();
  const Error outside(what + ": the trie points outside itself");
  if (n == 0) throw outside;
  std::vector<bool> seen(n);
  std::vector<uint32_t> todo = {units[0].offset()};
  while (!todo.empty()) {
    const uint32_t base = todo.back();
    todo.pop_back();
    if ((base | 0xFFU) >= n) throw outside;  // base ^ byte, any byte
    if (seen[base]) continue;
    seen[base] = true;
    for (uint32_t byte = 0; byte < 256; ++byte) {
      const DartsUnit unit = units[base ^ byte];
      if (unit.label() != byte) continue;
      const uint32_t next = base ^ byte ^ unit.offset();
      if (unit.has_leaf()) {
        if (next >= n) throw outside;
        if (units[next].value() >= strings_size) {
          throw Error(what + ": a rule points outside its string table");
        }
      }
      todo.push_back(next);
    }
  }
}

void CheckCharsMap(std::string_view blob, const std::string& what) {
  uint32_t trie_bytes = 0;
  if (blob.size() <= sizeof(trie_bytes)) {
    throw Error(what + ": shorter than its header");
  }
  std::memcpy(&trie_bytes, blob.data(), sizeof(trie_bytes));  // little-endian
  blob.remove_prefix(sizeof(trie_bytes));
  if (trie_bytes > blob.size() || trie_bytes % sizeof(uint32_t) != 0) {
    throw Error(what + ": trie size " + std::to_string(trie_bytes) +
                " does not fit its " + std::to_string(blob.size()) + " bytes");
  }
  if (trie_bytes == 0) throw Error(what + ": the trie points outside itself");
  const std::string_view strings = blob.substr(trie_bytes);
  if (strings.empty() || strings.back() != '\0') {
    throw Error(what + ": its string table is not NUL-terminated");
  }
  std::vector<DartsUnit> units(trie_bytes / sizeof(uint32_t));
  std::memcpy(units.data(), blob.data(), trie_bytes);
  CheckDoubleArray(units, strings.size(), what);
}

// The library's trie builder aborts the process rather than returning an
// error on a piece it cannot insert: it reads each piece as a
// NUL-terminated string, so an empty one, or one with a NUL byte (empty or
// out of order once cut there), must not reach it.
void CheckPiece(std::string_view piece, size_t index, const std::string& what) {
  std::string_view text;
  ForEachBytesField(piece, what, [&](uint64_t field, std::string_view bytes) {
    if (field == kPieceText) text = bytes;
  });
  if (text.empty()) {
    throw Error(what + ": piece " + std::to_string(index) + " is empty");
  }
  if (text.find('\0') != std::string_view::npos) {
    throw Error(what + ": piece " + std::to_string(index) +
                " holds a NUL byte");
  }
}

}  // namespace

void CheckSentencePieceModel(std::string_view model_proto,
                             const std::string& what) {
  size_t pieces = 0;
  ForEachBytesField(
      model_proto, what, [&](uint64_t field, std::string_view spec) {
        if (field == kPieces) CheckPiece(spec, pieces++, what);
        if (field != kNormalizerSpec && field != kDenormalizerSpec) return;
        const std::string map =
            what + (field == kNormalizerSpec ? ": normaliser charsmap"
                                             : ": denormaliser charsmap");
        ForEachBytesField(spec, what,
                          [&](uint64_t inner, std::string_view bytes) {
                            if (inner == kCharsMap && !bytes.empty())
                              CheckCharsMap(bytes, map);
                          });
      });
}

}  // namespace heed
