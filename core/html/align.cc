#include "core/html/align.h"

#include <algorithm>

#include "core/html/markup.h"

namespace heed {
namespace {

// SentencePiece marks a word's first piece with U+2581.
bool StartsWord(const std::string& piece) {
  return piece.compare(0, 3, "\xE2\x96\x81") == 0;
}

// Per piece, the word it belongs to (-1: not text). Pieces that start a
// word begin the next one; where their count is not the text's word count
// (normalisation can add or merge spaces) pieces are spread evenly.
std::vector<int> PieceWords(const std::vector<std::string>& pieces,
                            const std::vector<std::string>& special,
                            size_t words) {
  std::vector<int> out(pieces.size(), -1);
  std::vector<size_t> text;  // indices of text pieces
  for (size_t p = 0; p < pieces.size(); ++p) {
    if (std::find(special.begin(), special.end(), pieces[p]) == special.end()) {
      text.push_back(p);
    }
  }
  if (words == 0 || text.empty()) return out;
  int w = -1;
  bool pending = true;  // the next text piece starts a word
  for (size_t p : text) {
    if (StartsWord(pieces[p])) pending = true;
    if (pending && pieces[p] != "\xE2\x96\x81") {
      ++w;
      pending = false;
    }
    out[p] = std::max(w, 0);
  }
  if (w + 1 != static_cast<int>(words)) {
    for (size_t k = 0; k < text.size(); ++k) {
      out[text[k]] = static_cast<int>(k * words / text.size());
    }
  }
  return out;
}

// The cross-attention of target piece t on source piece s, as `with` says.
float Weight(const Attention& a, size_t t, size_t s, size_t layer) {
  float sum = 0;
  for (size_t h = 0; h < a.heads; ++h) {
    sum += a.cross[((layer * a.heads + h) * a.target + t) * a.source + s];
  }
  return sum;
}

// Links the target words [t0, t0 + tw) to the source words [s0, s0 + sw)
// of one sentence: each to the source word its pieces attend to most.
void LinkSentence(const SentenceResult& sr,
                  const std::vector<std::string>& special, AlignWith with,
                  size_t s0, size_t sw, size_t t0, size_t tw,
                  WordAlignment* al) {
  const Attention& a = sr.attention;
  const Translation& best = sr.best;
  if (a.cross.empty() || sw == 0 || tw == 0) return;
  const int layers = static_cast<int>(a.decoder_layers);
  const size_t layer = std::clamp(
      with.layer < 0 ? layers + with.layer : with.layer, 0, layers - 1);
  const std::vector<int> src = PieceWords(sr.source_pieces, special, sw);
  const std::vector<int> tgt = PieceWords(best.pieces, special, tw);
  std::vector<float> score(tw * sw, 0.0f);
  for (size_t t = 0; t < tgt.size() && t < a.target; ++t) {
    if (tgt[t] < 0) continue;
    for (size_t s = 0; s < src.size() && s < a.source; ++s) {
      if (src[s] >= 0) score[tgt[t] * sw + src[s]] += Weight(a, t, s, layer);
    }
  }
  for (size_t w = 0; w < tw; ++w) {
    const float* row = &score[w * sw];
    al->link[t0 + w] =
        static_cast<int>(s0 + (std::max_element(row, row + sw) - row));
  }
  for (size_t s = 0; s < sw; ++s) {
    size_t top = 0;
    for (size_t w = 1; w < tw; ++w) {
      if (score[w * sw + s] > score[top * sw + s]) top = w;
    }
    al->best[s0 + s] = static_cast<int>(t0 + top);
  }
}

// Words of `text` that lie in [begin, end): [first, last).
std::pair<size_t, size_t> WordsIn(const std::vector<WordSpan>& words,
                                  size_t begin, size_t end) {
  size_t first = 0;
  while (first < words.size() && words[first].begin < begin) ++first;
  size_t last = first;
  while (last < words.size() && words[last].end <= end) ++last;
  return {first, last};
}

}  // namespace

std::vector<WordSpan> SplitWords(std::string_view text) {
  std::vector<WordSpan> out;
  size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && IsHtmlSpace(text[i])) ++i;
    const size_t begin = i;
    while (i < text.size() && !IsHtmlSpace(text[i])) ++i;
    if (i > begin) out.push_back({begin, i});
  }
  return out;
}

WordAlignment AlignWords(const std::string& source, const std::string& target,
                         const std::vector<SentenceResult>& sentences,
                         const std::vector<std::string>& special,
                         AlignWith with) {
  WordAlignment al;
  al.source = SplitWords(source);
  al.target = SplitWords(target);
  al.link.assign(al.target.size(), -1);
  al.best.assign(al.source.size(), -1);
  size_t at_source = 0, at_target = 0;  // where the next sentence may start
  for (const SentenceResult& sr : sentences) {
    const size_t s = source.find(sr.source, at_source);
    const size_t t = target.find(sr.best.text, at_target);
    if (s == std::string::npos || t == std::string::npos) continue;
    at_source = s + sr.source.size();
    at_target = t + sr.best.text.size();
    const auto [s0, s1] = WordsIn(al.source, s, at_source);
    const auto [t0, t1] = WordsIn(al.target, t, at_target);
    LinkSentence(sr, special, with, s0, s1 - s0, t0, t1 - t0, &al);
  }
  return al;
}

}  // namespace heed
