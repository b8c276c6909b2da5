#include "core/text/tokenizer.h"

#include <algorithm>

#include <sentencepiece_processor.h>

// Debian's SentencePiece takes std::string_view, upstream its own
// absl::string_view; spelling absl::string_view builds against both.

#include "core/error.h"
#include "core/text/spm_check.h"
#include "core/text/utf8.h"

namespace heed {
namespace {

// SentencePiece's mark for a space, U+2581.
constexpr char kSpaceMark[] = "\xE2\x96\x81";

// A piece's text with its space marks as spaces.
std::string WithSpaces(const std::string& piece) {
  std::string out;
  for (size_t i = 0; i < piece.size();) {
    if (piece.compare(i, 3, kSpaceMark) == 0) {
      out += ' ';
      i += 3;
    } else {
      out += piece[i++];
    }
  }
  return out;
}

}  // namespace

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

std::vector<int> Tokenizer::Encode(std::string_view text,
                                   std::vector<std::string>* unknowns) const {
  std::vector<int> ids = Encode(text);
  unknowns->clear();
  const int unk = spm_->unk_id();
  if (std::find(ids.begin(), ids.end(), unk) == ids.end()) return ids;
  // Only a text with unknown pieces is encoded again, as pieces: the
  // library writes an unknown piece as the (normalised) text it stands for.
  std::vector<std::string> pieces;
  const auto status =
      spm_->Encode(absl::string_view(text.data(), text.size()), &pieces);
  if (!status.ok()) throw Error("tokenisation failed: " + status.ToString());
  if (pieces.size() != ids.size()) {
    throw Error("tokenisation failed: pieces and ids differ in number");
  }
  for (size_t i = 0; i < ids.size(); ++i) {
    if (ids[i] == unk) unknowns->push_back(WithSpaces(pieces[i]));
  }
  return ids;
}

std::string Tokenizer::Decode(const std::vector<int>& ids) const {
  return DecodeText(TextIds(ids));
}

std::string Tokenizer::Decode(const std::vector<int>& ids,
                              const std::vector<std::string>& unknowns) const {
  const int unk = spm_->unk_id();
  // A run after an unknown piece is decoded behind one, so that the library
  // does not treat it as the text's start (where it drops a space), then
  // the unknown's own text is cut off.
  const std::string unk_text = DecodeText({unk});
  std::string text;
  std::vector<int> run;  // pieces since the last unknown one
  size_t k = 0;          // unknown pieces so far
  bool dropped = false;  // the last unknown piece was written as ""
  const auto flush = [&] {
    if (run.empty()) return;
    if (k > 0) run.insert(run.begin(), unk);
    std::string part = DecodeText(run);
    if (k > 0 && part.compare(0, unk_text.size(), unk_text) == 0) {
      part.erase(0, unk_text.size());
    }
    // "a ▁ <unk> ▁b" without its unknown piece is "a b", not "a  b".
    if (dropped && (text.empty() || text.back() == ' ') && !part.empty() &&
        part.front() == ' ') {
      part.erase(0, 1);
    }
    text += part;
    run.clear();
    dropped = false;
  };
  for (int id : TextIds(ids)) {
    if (id != unk) {
      run.push_back(id);
      continue;
    }
    flush();
    const std::string_view copy =
        k < unknowns.size() ? std::string_view(unknowns[k]) : "";
    ++k;
    text += copy;
    dropped = dropped || copy.empty();
  }
  flush();
  if (dropped && !text.empty() && text.back() == ' ') text.pop_back();
  return text;
}

std::vector<int> Tokenizer::TextIds(const std::vector<int>& ids) const {
  std::vector<int> kept;
  for (int id : ids) {
    if (id < 0 || id >= spm_->GetPieceSize() || spm_->IsControl(id)) continue;
    kept.push_back(id);
  }
  return kept;
}

std::string Tokenizer::DecodeText(const std::vector<int>& ids) const {
  std::string text;
  const auto status = spm_->Decode(ids, &text);
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
