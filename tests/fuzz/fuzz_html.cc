// libFuzzer target: arbitrary bytes as an HTML fragment in HTML mode. The
// parts put back together are the input; each block's markup is placed on
// its own text as the translation, with an alignment taken from the input
// bytes, and rendered; nothing may read out of bounds or fail.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "core/html/align.h"
#include "core/html/markup.h"
#include "core/html/place.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view html(reinterpret_cast<const char*>(data), size);
  std::string joined;
  for (const heed::HtmlPart& p : heed::ParseHtml(html)) {
    if (!p.is_block) {
      joined += p.markup;
      continue;
    }
    joined += p.block.raw;
    heed::WordAlignment al;
    al.source = heed::SplitWords(p.block.text);
    al.target = al.source;
    const int n = static_cast<int>(al.source.size());
    for (int t = 0; t < n; ++t) {
      const int byte = data[static_cast<size_t>(t) % size];
      al.link.push_back(byte % 7 == 0 ? -1 : byte % n);
      al.best.push_back((t * 31 + byte) % n);
    }
    heed::RenderBlock(p.block, p.block.text, al, heed::PlaceTags(p.block, al));
  }
  if (joined != html) std::abort();  // markup lost or made up
  return 0;
}
