// libFuzzer target: arbitrary bytes as a serialized SentencePiece model, as
// they arrive inside a model file. Every input is either refused with
// heed::Error or tokenises and detokenises text that walks the normaliser.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "core/error.h"
#include "core/text/tokenizer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    const heed::Tokenizer t = heed::Tokenizer::FromSerialized(
        std::string_view(reinterpret_cast<const char*>(data), size), "fuzz");
    t.Decode(t.Encode("A dog. ｆｕｌｌ ﬁsh ① Ü ㍻ x\u0301 <2de> ..."));
  } catch (const heed::Error&) {
  }
  return 0;
}
