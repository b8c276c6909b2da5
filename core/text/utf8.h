// UTF-8 validation (RFC 3629: no overlongs, no surrogates, ≤ U+10FFFF).
#ifndef HEED_CORE_TEXT_UTF8_H_
#define HEED_CORE_TEXT_UTF8_H_

#include <cstddef>
#include <string_view>

namespace heed {

// True if text is valid UTF-8; otherwise *error_offset is the byte offset
// of the first invalid sequence.
bool IsValidUtf8(std::string_view text, size_t* error_offset);

// True if valid UTF-8 `text` has nothing to read: every code point is
// white space, a control character (Cc) or a format character (Cf), as
// JavaScript's /^[\s\p{Cc}\p{Cf}]*$/u has it.
bool IsInvisibleText(std::string_view text);

}  // namespace heed

#endif  // HEED_CORE_TEXT_UTF8_H_
