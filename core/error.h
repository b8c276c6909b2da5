// The one exception type of heed's public API: every failure on bad input
// (model files, text, options) is reported as a heed::Error whose message
// says what went wrong and where.
#ifndef HEED_CORE_ERROR_H_
#define HEED_CORE_ERROR_H_

#include <stdexcept>
#include <string>

namespace heed {

class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message) : std::runtime_error(message) {}
};

}  // namespace heed

#endif  // HEED_CORE_ERROR_H_
