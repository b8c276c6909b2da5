#include "core/text/tokenizer.h"

#include <sentencepiece_processor.h>

// Debian's SentencePiece takes std::string_view, upstream its own
// absl::string_view; spelling absl::string_view builds against both.

#include "core/error.h"
#include "core/text/spm_check.h"
#include "core/text/utf8.h"

namespace heed {

Tokenizer::Tokenizer()
    : spm_(std::make_unique<sentencepiece::SentencePieceProcessor>()) {}
Tokenizer::Tokenizer(Tokenizer&&) noexcept = default;
Tokenizer& Tokenizer::operator=(Tokenizer&&) noexcept = default;
Tokenizer::~Tokenizer() = default;

Tokenizer Tokenizer::FromSerialized(std::string_view bytes,
                                    const std::string& what) {
  CheckSentencePieceModel(bytes, what);  // before the library walks it
  Tokenizer t;
  const auto status = t.spm_->LoadFromSerializedProto(
      absl::string_view(bytes.data(), bytes.size()));
  if (!status.ok()) {
    throw Error(what + ": not a SentencePiece model: " + status.ToString());
  }
  return t;
}

std::vector<int> Tokenizer::Encode(std::string_view text) const {
  size_t offset = 0;
  if (!IsValidUtf8(text, &offset)) {
    throw Error("text is not valid UTF-8 (byte " + std::to_string(offset) +
                ")");
  }
  std::vector<int> ids;
  const auto status =
      spm_->Encode(absl::string_view(text.data(), text.size()), &ids);
  if (!status.ok()) throw Error("tokenisation failed: " + status.ToString());
  return ids;
}

std::string Tokenizer::Decode(const std::vector<int>& ids) const {
  std::vector<int> kept;
  for (int id : ids) {
    if (id < 0 || id >= spm_->GetPieceSize() || spm_->IsControl(id)) continue;
    kept.push_back(id);
  }
  std::string text;
  const auto status = spm_->Decode(kept, &text);
  if (!status.ok()) throw Error("detokenisation failed: " + status.ToString());
  return text;
}

float Tokenizer::Score(int id) const {
  if (id < 0 || id >= spm_->GetPieceSize()) return 0.0f;
  return spm_->GetScore(id);
}

std::string Tokenizer::Piece(int id) const {
  if (id < 0 || id >= spm_->GetPieceSize()) return "";
  return spm_->IdToPiece(id);
}

int Tokenizer::PieceId(const std::string& piece) const {
  const int id = spm_->PieceToId(piece);
  return spm_->IdToPiece(id) == piece ? id : -1;
}

size_t Tokenizer::size() const { return spm_->GetPieceSize(); }
int Tokenizer::pad_id() const { return spm_->pad_id(); }
int Tokenizer::bos_id() const { return spm_->bos_id(); }
int Tokenizer::eos_id() const { return spm_->eos_id(); }
int Tokenizer::unk_id() const { return spm_->unk_id(); }

}  // namespace heed
