// The one exception type of heed's public API: every failure on bad input
// (model files, text, options) is reported as a heed::Error whose message
// says what went wrong and where.
#ifndef HEED_CORE_ERROR_H_
#define HEED_CORE_ERROR_H_

#include <cstddef>
#include <stdexcept>
#include <string>

namespace heed {

class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message) : std::runtime_error(message) {}
};

// A request stopped by its caller (DecodingOptions::cancelled).
class Cancelled : public Error {
 public:
  Cancelled() : Error("the translation was cancelled") {}
};

// A failure of one text of a batch: which one and why, so a caller can
// report it (the CLI names the input line) and translate the others.
class TextError : public Error {
 public:
  TextError(size_t text, const std::string& reason)
      : Error("text " + std::to_string(text) + " " + reason),
        text_(text),
        reason_(reason) {}
  size_t text() const { return text_; }                  // index in the batch
  const std::string& reason() const { return reason_; }  // "is not ..."

 private:
  size_t text_;
  std::string reason_;
};

}  // namespace heed

#endif  // HEED_CORE_ERROR_H_
