// libFuzzer target: arbitrary bytes as a model file. Loading must either
// succeed or throw heed::Error; nothing else (no crash, no other exception,
// no out-of-bounds read under ASan).
#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/translator.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    const heed::Translator t =
        heed::Translator::FromBytes(std::vector<uint8_t>(data, data + size));
    heed::TranslateOptions o;
    o.beam_size = 1;
    o.max_length_extra = 2;
    o.max_length_ratio = 0.5f;
    if (!t.languages().empty()) o.to = t.languages()[0];
    t.Translate("A dog.", o);
  } catch (const heed::Error&) {
  }
  return 0;
}
