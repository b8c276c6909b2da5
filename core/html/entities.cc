#include "core/html/entities.h"

#include <cstdint>

namespace heed {
namespace {

struct Named {
  std::string_view name;  // without '&' and ';'
  uint32_t code;
};

// The references of ordinary prose; any other is kept as it is.
constexpr Named kNamed[] = {
    {"amp", '&'},       {"lt", '<'},        {"gt", '>'},
    {"quot", '"'},      {"apos", '\''},     {"nbsp", 0xA0},
    {"shy", 0xAD},      {"copy", 0xA9},     {"reg", 0xAE},
    {"trade", 0x2122},  {"hellip", 0x2026}, {"mdash", 0x2014},
    {"ndash", 0x2013},  {"lsquo", 0x2018},  {"rsquo", 0x2019},
    {"sbquo", 0x201A},  {"ldquo", 0x201C},  {"rdquo", 0x201D},
    {"bdquo", 0x201E},  {"laquo", 0xAB},    {"raquo", 0xBB},
    {"euro", 0x20AC},   {"pound", 0xA3},    {"yen", 0xA5},
    {"cent", 0xA2},     {"sect", 0xA7},     {"deg", 0xB0},
    {"middot", 0xB7},   {"bull", 0x2022},   {"times", 0xD7},
    {"divide", 0xF7},   {"auml", 0xE4},     {"ouml", 0xF6},
    {"uuml", 0xFC},     {"Auml", 0xC4},     {"Ouml", 0xD6},
    {"Uuml", 0xDC},     {"szlig", 0xDF},    {"eacute", 0xE9},
    {"egrave", 0xE8},   {"Eacute", 0xC9},   {"agrave", 0xE0},
    {"aacute", 0xE1},   {"ccedil", 0xE7},   {"iacute", 0xED},
    {"oacute", 0xF3},   {"uacute", 0xFA},   {"ntilde", 0xF1},
    {"ecirc", 0xEA},    {"acirc", 0xE2},    {"ocirc", 0xF4},
    {"thinsp", 0x2009}, {"ensp", 0x2002},   {"emsp", 0x2003},
};

void AppendUtf8(uint32_t c, std::string* out) {
  if (c < 0x80) {
    out->push_back(static_cast<char>(c));
  } else if (c < 0x800) {
    out->push_back(static_cast<char>(0xC0 | (c >> 6)));
    out->push_back(static_cast<char>(0x80 | (c & 0x3F)));
  } else if (c < 0x10000) {
    out->push_back(static_cast<char>(0xE0 | (c >> 12)));
    out->push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (c & 0x3F)));
  } else {
    out->push_back(static_cast<char>(0xF0 | (c >> 18)));
    out->push_back(static_cast<char>(0x80 | ((c >> 12) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (c & 0x3F)));
  }
}

bool IsAlnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
         (c >= '0' && c <= '9');
}

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// &#NNN; or &#xHH;: the code point, or false where it is none a text may
// hold (0, a surrogate, past U+10FFFF, a control character).
bool Numeric(std::string_view digits, uint32_t* code) {
  const bool hex = !digits.empty() && (digits[0] == 'x' || digits[0] == 'X');
  if (hex) digits.remove_prefix(1);
  if (digits.empty() || digits.size() > 8) return false;
  uint32_t c = 0;
  for (char ch : digits) {
    const int v = hex ? HexDigit(ch) : (ch >= '0' && ch <= '9' ? ch - '0' : -1);
    if (v < 0) return false;
    c = c * (hex ? 16 : 10) + static_cast<uint32_t>(v);
  }
  const bool control =
      (c < 0x20 && c != '\t' && c != '\n') || (c >= 0x7F && c < 0xA0);
  if (control || (c >= 0xD800 && c < 0xE000) || c > 0x10FFFF) return false;
  *code = c;
  return true;
}

}  // namespace

size_t ReadEntity(std::string_view text, std::string* out, bool* decoded) {
  *decoded = false;
  // A reference is '&', a name or '#' and digits, ';' (32 bytes at most).
  size_t n = 1;
  if (n < text.size() && text[n] == '#') ++n;
  while (n < text.size() && n < 32 && IsAlnum(text[n])) ++n;
  if (n >= text.size() || text[n] != ';' || n == 1) return 0;
  const std::string_view body = text.substr(1, n - 1);
  uint32_t code = 0;
  bool known = false;
  if (body[0] == '#') {
    known = Numeric(body.substr(1), &code);
  } else {
    for (const Named& e : kNamed) {
      if (e.name == body) {
        code = e.code;
        known = true;
        break;
      }
    }
  }
  if (known) {
    AppendUtf8(code, out);
    *decoded = true;
  }
  return n + 1;
}

}  // namespace heed
