#include "core/text/utf8.h"

#include <cstdint>

namespace heed {

bool IsValidUtf8(std::string_view text, size_t* error_offset) {
  const auto* s = reinterpret_cast<const uint8_t*>(text.data());
  const size_t n = text.size();
  size_t i = 0;
  while (i < n) {
    const uint8_t c = s[i];
    size_t len;
    uint32_t cp;
    if (c < 0x80) {
      ++i;
      continue;
    }
    if (c >= 0xC2 && c <= 0xDF) {
      len = 2;
      cp = c & 0x1F;
    } else if (c >= 0xE0 && c <= 0xEF) {
      len = 3;
      cp = c & 0x0F;
    } else if (c >= 0xF0 && c <= 0xF4) {
      len = 4;
      cp = c & 0x07;
    } else {
      *error_offset = i;
      return false;
    }
    if (i + len > n) {
      *error_offset = i;
      return false;
    }
    for (size_t k = 1; k < len; ++k) {
      if ((s[i + k] & 0xC0) != 0x80) {
        *error_offset = i;
        return false;
      }
      cp = (cp << 6) | (s[i + k] & 0x3F);
    }
    const bool overlong =
        (len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000);
    if (overlong || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
      *error_offset = i;
      return false;
    }
    i += len;
  }
  return true;
}

namespace {

// The code point at s[*i] (valid UTF-8), *i moved past it.
uint32_t Next(std::string_view s, size_t* i) {
  const auto c = static_cast<uint8_t>(s[*i]);
  const size_t len = c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
  uint32_t cp = len == 1 ? c : c & (0x7F >> len);
  for (size_t k = 1; k < len && *i + k < s.size(); ++k) {
    cp = (cp << 6) | (static_cast<uint8_t>(s[*i + k]) & 0x3F);
  }
  *i += len;
  return cp;
}

bool Invisible(uint32_t c) {
  static constexpr uint32_t kRanges[][2] = {
      {0x0000, 0x0020},   {0x007F, 0x00A0},   {0x00AD, 0x00AD},
      {0x0600, 0x0605},   {0x061C, 0x061C},   {0x06DD, 0x06DD},
      {0x070F, 0x070F},   {0x0890, 0x0891},   {0x08E2, 0x08E2},
      {0x1680, 0x1680},   {0x180E, 0x180E},   {0x2000, 0x200F},
      {0x2028, 0x202F},   {0x205F, 0x2064},   {0x2066, 0x206F},
      {0x3000, 0x3000},   {0xFEFF, 0xFEFF},   {0xFFF9, 0xFFFB},
      {0x110BD, 0x110BD}, {0x110CD, 0x110CD}, {0x13430, 0x1343F},
      {0x1BCA0, 0x1BCA3}, {0x1D173, 0x1D17A}, {0xE0001, 0xE0001},
      {0xE0020, 0xE007F}};
  for (const auto& r : kRanges) {
    if (c >= r[0] && c <= r[1]) return true;
  }
  return false;
}

}  // namespace

bool IsInvisibleText(std::string_view text) {
  size_t i = 0;
  while (i < text.size()) {
    if (!Invisible(Next(text, &i))) return false;
  }
  return true;
}

}  // namespace heed
