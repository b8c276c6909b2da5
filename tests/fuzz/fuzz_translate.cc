// libFuzzer target: arbitrary text and options through Translate on the
// tiny fixture model. The first two bytes choose the options; the rest is
// the text. Every input either translates or throws heed::Error.
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/translator.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const heed::Translator translator = heed::Translator::FromFile(
      std::string(HEED_FIXTURE_DIR) + "/tiny_prenorm.heed");
  if (size < 2) return 0;
  heed::TranslateOptions o;
  const char* languages[] = {"de", "en", "", "xx"};
  o.to = languages[data[0] & 3];
  o.beam_size = 1 + ((data[0] >> 2) & 3);
  o.nbest = 1 + ((data[0] >> 4) & 1);
  o.attention = (data[0] >> 5) & 1;
  if ((data[0] >> 6) & 1)
    o.masked_heads.push_back({heed::AttentionKind::kCross, data[1] & 3u, 0});
  o.max_sentence_tokens = 3 + data[1] % 64;
  o.max_length_ratio = 0.5f;
  o.max_length_extra = 3;
  try {
    translator.Translate(
        std::string(reinterpret_cast<const char*>(data) + 2, size - 2), o);
  } catch (const heed::Error&) {
  }
  return 0;
}
