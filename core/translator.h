// heed's public API: load a model, translate text, and read back every
// attention probability behind the translation.
//
//   heed::Translator t = heed::Translator::FromFile("models/en-de.heed");
//   heed::TranslateOptions o;
//   o.to = "de";
//   heed::Result r = t.Translate("A dog runs in the park.", o);
//
// Every failure on bad input (model file, text, options) throws heed::Error
// with a message that says what and where; the translator stays usable.
// A Translator is immutable after loading: concurrent Translate calls from
// several threads are safe.
#ifndef HEED_CORE_TRANSLATOR_H_
#define HEED_CORE_TRANSLATOR_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.h"
#include "core/model/config.h"
#include "core/options.h"
#include "core/result.h"
#include "core/text/sentences.h"

namespace heed {

class ModelFile;

class Translator {
 public:
  static Translator FromFile(const std::string& path);
  static Translator FromBytes(std::vector<uint8_t> bytes);

  Translator(Translator&&) noexcept;
  Translator& operator=(Translator&&) noexcept;
  ~Translator();

  std::vector<Result> Translate(const std::vector<std::string>& texts,
                                const TranslateOptions& options,
                                const SentenceCallback& on_sentence = {}) const;
  Result Translate(const std::string& text, const TranslateOptions& options,
                   const SentenceCallback& on_sentence = {}) const;

  // Throws heed::Error when an option is out of range, whatever the model
  // (the language and head checks need one: Translate makes them).
  static void CheckOptions(const TranslateOptions& options);

  // The text as Translate splits it: sentences and the whitespace between
  // them (is_sentence false); the segments' texts concatenate to `text`.
  // Text the model reads as nothing (zero-width or control characters
  // only) is not a sentence: Translate copies it as it is.
  std::vector<Segment> Split(std::string_view text) const;

  // The sinusoidal encoding the model adds at positions 0..positions-1:
  // (positions, d_model), row-major. Throws heed::Error above 4096.
  std::vector<float> PositionalEncoding(size_t positions) const;

  const ModelConfig& config() const;
  const ModelFile& file() const;  // the loaded file: tensors, size, source
  std::vector<std::string> languages() const;  // target language codes
  size_t parameters() const;
  size_t file_size() const;

 private:
  struct Impl;
  explicit Translator(std::unique_ptr<Impl> impl);
  static std::unique_ptr<Impl> Build(ModelFile file);
  std::unique_ptr<Impl> impl_;
};

}  // namespace heed

#endif  // HEED_CORE_TRANSLATOR_H_
