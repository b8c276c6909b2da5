#include "core/html/translate.h"

#include <algorithm>
#include <string>
#include <utility>

#include "core/html/align.h"
#include "core/html/markup.h"
#include "core/html/place.h"

namespace heed {
namespace {

// The decoder layer whose cross-attention, averaged over its heads, aligns
// best on tests/html's hand-placed tags: the last (docs/html.md).
constexpr AlignWith kAlignWith{-1};

struct BlockRef {
  size_t text, part;  // the text and its part the block is
};

// At most 1,000 bytes of a described text (cut at a character, "…"
// after): 100,000 nested elements around a paragraph must not each copy it.
std::string Clip(std::string text) {
  constexpr size_t kMax = 1000;
  if (text.size() <= kMax) return text;
  size_t n = kMax;
  while (n > 0 && (static_cast<unsigned char>(text[n]) & 0xC0) == 0x80) --n;
  text.resize(n);
  return text + "\u2026";
}

// Element e of a block and the target words it was put around.
HtmlTag Describe(const HtmlBlock& block, size_t e, const std::string& target,
                 const WordAlignment& al, const TagPlacement& place) {
  const HtmlElement& el = block.elements[e];
  return {Clip(el.open),
          Clip(block.text.substr(el.begin,
                                 std::min<size_t>(el.end - el.begin, 1001))),
          Clip(WrappedText(target, al, place, e))};
}

}  // namespace

std::vector<Result> TranslateHtml(const std::vector<std::string>& texts,
                                  const TranslateOptions& options,
                                  const SentenceCallback& on_sentence,
                                  const std::vector<std::string>& special,
                                  const PlainTranslate& translate) {
  std::vector<std::vector<HtmlPart>> parsed;
  std::vector<std::string> blocks;
  std::vector<BlockRef> refs;
  for (size_t i = 0; i < texts.size(); ++i) {
    parsed.push_back(ParseHtml(texts[i]));
    for (size_t p = 0; p < parsed[i].size(); ++p) {
      if (!parsed[i][p].is_block) continue;
      blocks.push_back(parsed[i][p].block.text);
      refs.push_back({i, p});
    }
  }
  TranslateOptions plain = options;
  plain.html = false;
  plain.attention = true;  // the alignment reads the cross-attention
  SentenceCallback relay;
  if (on_sentence) {
    relay = [&](size_t block, const SentenceResult& sr) {
      on_sentence(refs[block].text, sr);
    };
  }
  std::vector<Result> translated = translate(blocks, plain, relay);

  std::vector<Result> results(texts.size());
  std::vector<std::vector<std::string>> rendered(texts.size());
  for (size_t i = 0; i < texts.size(); ++i) {
    if (!translated.empty()) results[i].timings = translated[0].timings;
    rendered[i].resize(parsed[i].size());
  }
  for (size_t b = 0; b < blocks.size(); ++b) {
    const HtmlBlock& block = parsed[refs[b].text][refs[b].part].block;
    Result& t = translated[b];
    const WordAlignment al =
        AlignWords(block.text, t.text, t.sentences, special, kAlignWith);
    const TagPlacement place = PlaceTags(block, al);
    rendered[refs[b].text][refs[b].part] =
        RenderBlock(block, t.text, al, place);
    Result& r = results[refs[b].text];
    for (size_t e = 0; e < block.elements.size(); ++e) {
      r.tags.push_back(Describe(block, e, t.text, al, place));
    }
    r.target_tokens += t.target_tokens;
    for (SentenceResult& sr : t.sentences) {
      if (!options.attention && !options.contributions && !options.query_key) {
        sr.attention = Attention{};
        sr.alternatives.clear();
      }
      r.sentences.push_back(std::move(sr));
    }
  }
  for (size_t i = 0; i < texts.size(); ++i) {
    for (size_t p = 0; p < parsed[i].size(); ++p) {
      results[i].text +=
          parsed[i][p].is_block ? rendered[i][p] : parsed[i][p].markup;
    }
  }
  return results;
}

}  // namespace heed
