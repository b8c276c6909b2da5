// SentencePiece tokenisation through the reference library, with the model
// read from bytes (it travels inside the heed model file).
#ifndef HEED_CORE_TEXT_TOKENIZER_H_
#define HEED_CORE_TEXT_TOKENIZER_H_

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace sentencepiece {
class SentencePieceProcessor;
}

namespace heed {

class Tokenizer {
 public:
  // Throws heed::Error (naming `what`) if the bytes are not a model.
  static Tokenizer FromSerialized(std::string_view bytes,
                                  const std::string& what);

  Tokenizer(Tokenizer&&) noexcept;
  Tokenizer& operator=(Tokenizer&&) noexcept;
  ~Tokenizer();

  // Piece ids of text, which must be valid UTF-8 (throws heed::Error).
  std::vector<int> Encode(std::string_view text) const;
  // The same, and in `unknowns` the text each unknown piece (unk_id) stands
  // for, in order, as normalised: the characters the vocabulary lacks ("ø",
  // "<").
  std::vector<int> Encode(std::string_view text,
                          std::vector<std::string>* unknowns) const;
  // Text of ids; control pieces (BOS, EOS, padding) are dropped.
  std::string Decode(const std::vector<int>& ids) const;
  // The same with the k-th unknown piece of ids written as unknowns[k]
  // (where the library writes " ⁇ "): "" drops it, with one of the spaces
  // around it; unknown pieces past the end of unknowns are dropped too.
  // The text between them is the library's own decoding.
  std::string Decode(const std::vector<int>& ids,
                     const std::vector<std::string>& unknowns) const;
  std::string Piece(int id) const;  // "" for an id outside the vocabulary
  int PieceId(const std::string& piece) const;  // -1 when not a piece
  // The piece's score in the model: its unigram log-probability (0 for an
  // id outside the vocabulary).
  float Score(int id) const;
  size_t size() const;
  // The tokenizer's own special ids (-1 where it has none).
  int pad_id() const;
  int bos_id() const;
  int eos_id() const;
  int unk_id() const;

 private:
  Tokenizer();
  std::vector<int> TextIds(const std::vector<int>& ids) const;  // no control
  std::string DecodeText(const std::vector<int>& ids) const;    // the library's

  std::unique_ptr<sentencepiece::SentencePieceProcessor> spm_;
};

}  // namespace heed

#endif  // HEED_CORE_TEXT_TOKENIZER_H_
