#include "core/plan.h"

#include <algorithm>
#include <map>
#include <string>

#include "core/decode/search.h"
#include "core/error.h"
#include "core/option_table.h"
#include "core/text/utf8.h"

namespace heed {
namespace {

// Throws unless head h exists in the model.
void CheckHead(const ModelConfig& c, const HeadRef& h, const char* what) {
  const size_t layers[3] = {c.encoder_layers, c.decoder_layers,
                            c.decoder_layers};
  const int kind = static_cast<int>(h.kind);
  if (kind < 0 || kind > 2 || h.layer >= layers[kind] || h.head >= c.heads) {
    throw Error(std::string(what) + " (kind " + std::to_string(kind) +
                ", layer " + std::to_string(h.layer) + ", head " +
                std::to_string(h.head) + ") does not exist in this model");
  }
}

// Fills *mask in place (copying a HeadMask trips clang-tidy's check of the
// implicit array copy).
void SetMask(const ModelConfig& c, const std::vector<HeadRef>& heads,
             HeadMask* mask) {
  const size_t layers[3] = {c.encoder_layers, c.decoder_layers,
                            c.decoder_layers};
  for (const HeadRef& h : heads) {
    CheckHead(c, h, "masked head");
    const int kind = static_cast<int>(h.kind);
    auto& flags = mask->disabled[kind];
    flags.resize(layers[kind] * c.heads, 0);
    flags[h.layer * c.heads + h.head] = 1;
  }
}

// Fills *mask in place with the sublayers switched off; throws for one the
// model does not have.
void SetSublayers(const ModelConfig& c, const std::vector<SublayerRef>& off,
                  SublayerMask* mask) {
  for (const SublayerRef& s : off) {
    const int kind = static_cast<int>(s.kind);
    if (kind < 0 || kind >= kSublayerKinds) {
      throw Error("sublayer kind " + std::to_string(kind) +
                  " is not one of encoder-self, encoder-ffn, decoder-self, "
                  "cross, decoder-ffn");
    }
    const size_t layers =
        InEncoder(s.kind) ? c.encoder_layers : c.decoder_layers;
    if (s.layer >= layers) {
      throw Error(std::string("sublayer ") + SublayerName(s.kind) + " " +
                  std::to_string(s.layer) +
                  " does not exist in this model (layers 0.." +
                  std::to_string(layers - 1) + ")");
    }
    mask->off[kind].resize(layers, 0);
    mask->off[kind][s.layer] = 1;
  }
}

Positions ReadPositions(const std::string& name) {
  if (name == "on") return Positions::kOn;
  if (name == "off") return Positions::kOff;
  if (name == "shuffled") return Positions::kShuffled;
  throw Error("positions must be on, off or shuffled, not '" + name + "'");
}

// The source piece that asks for language `to`, or -1 for a model without
// language tags.
int TargetTag(const ModelConfig& c, const Tokenizer& source,
              const std::string& to) {
  if (c.target_tags.empty()) return -1;
  auto it = c.target_tags.find(to);
  if (it == c.target_tags.end()) {
    std::string known;
    for (const auto& [lang, piece] : c.target_tags) {
      known += (known.empty() ? "" : ", ") + lang;
    }
    throw Error("target language '" + to +
                "' is not one of this model's: " + known);
  }
  return source.PieceId(it->second);
}

void AddUnits(size_t text, size_t segment, const std::string& sentence,
              const Plan& plan, const Tokenizer& source, int eos,
              std::vector<Unit>* units) {
  std::vector<std::string> unknowns;
  const std::vector<int> pieces = source.Encode(sentence, &unknowns);
  size_t next_unknown = 0;
  for (size_t at = 0; at < pieces.size(); at += plan.room) {
    Unit u{text, segment, "", {}, {}};
    if (plan.tag >= 0) u.ids.push_back(plan.tag);
    const size_t end = std::min(pieces.size(), at + plan.room);
    std::vector<int> chunk(pieces.begin() + at, pieces.begin() + end);
    for (int id : chunk) {
      if (id == plan.source_unk && next_unknown < unknowns.size()) {
        u.unknowns.push_back(unknowns[next_unknown++]);
      }
    }
    u.source = pieces.size() <= plan.room ? sentence
                                          : source.Decode(chunk, u.unknowns);
    u.ids.insert(u.ids.end(), chunk.begin(), chunk.end());
    u.ids.push_back(eos);
    units->push_back(std::move(u));
  }
}

}  // namespace

void CheckLimits(const TranslateOptions& options) {
  CheckOptionRanges(options);
  CheckOptions(options);
  if (options.html && (!options.target_prefix.empty() ||
                       !options.target_prefix_pieces.empty())) {
    throw Error(
        "a target prefix applies to one sentence; HTML is blocks of "
        "them: use one or the other");
  }
  if (options.html && options.alignments) {
    throw Error(
        "alignments are of plain text; HTML mode uses them itself to put "
        "the markup back: use one or the other");
  }
}

void CheckInputBytes(size_t text, size_t bytes, size_t limit,
                     const char* what) {
  if (bytes > limit) {
    throw TextError(
        text, "is " + std::to_string(bytes) + what + ", over the limit of " +
                  std::to_string(limit) +
                  " (max_input_bytes): split it or raise the limit");
  }
}

// Checks every option, for any input (empty too), before any work.
Plan PlanRequest(const ModelConfig& c, const Tokenizer& source,
                 const TranslateOptions& options) {
  CheckLimits(options);
  Plan plan;
  plan.decoding = options;
  plan.run.capture_attention = options.attention || options.contributions ||
                               options.alignments || options.alti;
  plan.run.capture_alti = options.alti;
  plan.run.capture_value_norms = options.contributions;
  plan.run.capture_sublayer_norms = options.contributions;
  plan.run.capture_hidden = options.logit_lens > 0;
  SetMask(c, options.masked_heads, &plan.run.head_mask);
  SetSublayers(c, options.switched_off, &plan.run.sublayers);
  plan.run.positions = ReadPositions(options.positions);
  plan.erasure = ReadErasureMode(options.erasure);
  plan.copy_unknown = options.copy_unknown;
  plan.source_unk = source.unk_id();
  if (plan.erasure == ErasureMode::kRemove &&
      plan.run.positions == Positions::kShuffled) {
    throw Error(
        "erasure by removal shortens the source, which shuffles its "
        "positions differently: use erasure unk with shuffled positions");
  }
  if (options.query_key) {
    CheckHead(c, *options.query_key, "query/key head");
    plan.run.capture_attention = true;
    plan.run.probe = {true, options.query_key->kind, options.query_key->layer,
                      options.query_key->head};
  }
  plan.tag = TargetTag(c, source, options.to);
  plan.room = options.max_sentence_tokens - (plan.tag >= 0 ? 2 : 1);
  plan.max_input_bytes = options.max_input_bytes;
  plan.batch = std::max<size_t>(
      1, std::min(options.max_batch, kMaxDecoderRows / options.beam_size));
  return plan;
}

// The target tokens of options.target_prefix (text) or
// options.target_prefix_pieces; empty when neither is set.
std::vector<int> ForcedPrefix(const TranslateOptions& options,
                              const Tokenizer& target, const ModelConfig& c) {
  if (!options.target_prefix.empty() && !options.target_prefix_pieces.empty()) {
    throw Error("give the target prefix as text or as pieces, not both");
  }
  size_t bad = 0;
  if (!IsValidUtf8(options.target_prefix, &bad)) {
    throw Error("target prefix is not valid UTF-8 (byte " +
                std::to_string(bad) + ")");
  }
  std::vector<int> ids = target.Encode(options.target_prefix);
  if (std::find(ids.begin(), ids.end(), c.unk_id) != ids.end()) {
    throw Error("target prefix '" + options.target_prefix +
                "' has characters the model's vocabulary cannot write");
  }
  for (const std::string& piece : options.target_prefix_pieces) {
    const int id = target.PieceId(piece);
    bool tag = false;
    for (const auto& entry : c.target_tags) tag = tag || entry.second == piece;
    if (id < 0 || id == c.pad_id || id == c.eos_id || id == c.bos_id ||
        id == c.unk_id || tag) {
      throw Error("target prefix piece '" + piece +
                  "' is not a piece the model can produce");
    }
    ids.push_back(id);
  }
  return ids;
}

void CheckPrefix(const Work& work, size_t texts,
                 const DecodingOptions& options) {
  const size_t forced = options.forced_prefix.size();
  if (forced == 0) return;
  std::vector<size_t> units(texts, 0);
  for (const Unit& u : work.units) ++units[u.text];
  for (size_t i = 0; i < texts; ++i) {
    if (units[i] > 1) {
      throw TextError(i, "has " + std::to_string(units[i]) +
                             " sentences; a target prefix needs exactly one "
                             "sentence");
    }
  }
  for (const Unit& u : work.units) {
    const size_t limit = MaxTargetLength(u.ids.size(), options);
    if (forced > limit) {
      throw TextError(u.text, "is too short for the target prefix: its " +
                                  std::to_string(forced) +
                                  " tokens pass the length limit of " +
                                  std::to_string(limit) +
                                  " tokens for this sentence");
    }
  }
}

std::vector<Segment> SplitForModel(std::string_view text,
                                   const Tokenizer& source) {
  std::vector<Segment> segments = SplitSentences(text);
  for (Segment& s : segments) {
    if (s.is_sentence &&
        (IsInvisibleText(s.text) || source.Encode(s.text).empty())) {
      s.is_sentence = false;
    }
  }
  return segments;
}

Work MakeUnits(const std::vector<std::string>& texts, const Plan& plan,
               const Tokenizer& source, int eos) {
  Work work;
  work.segments.resize(texts.size());
  for (size_t i = 0; i < texts.size(); ++i) {
    CheckInputBytes(i, texts[i].size(), plan.max_input_bytes, " bytes");
    size_t bad = 0;
    if (!IsValidUtf8(texts[i], &bad)) {
      throw TextError(i,
                      "is not valid UTF-8 (byte " + std::to_string(bad) + ")");
    }
    work.segments[i] = SplitForModel(texts[i], source);
    for (size_t s = 0; s < work.segments[i].size(); ++s) {
      if (!work.segments[i][s].is_sentence) continue;
      AddUnits(i, s, work.segments[i][s].text, plan, source, eos, &work.units);
    }
  }
  return work;
}

// Refuses a text whose attention maps could exceed the limit: each unit of
// S source tokens may produce T = MaxTargetLength(S) target tokens and
// keeps (encoder) L·H·S² + (decoder) L·H·T² + (cross) L·H·T·S floats.
void CheckAttentionSize(const ModelConfig& c, const std::vector<Unit>& units,
                        const TranslateOptions& options) {
  std::map<size_t, double> bytes;  // per text
  for (const Unit& u : units) {
    const double S = static_cast<double>(u.ids.size());
    const double T =
        static_cast<double>(MaxTargetLength(u.ids.size(), options));
    const double heads = static_cast<double>(c.heads);
    // Contributions add a map per head and one per layer of each kind.
    // ALTI+ about two more per layer (each block's and the rollout).
    const double maps = (options.contributions ? 2.0 + 1.0 / heads : 1.0) +
                        (options.alti ? 2.0 / heads : 0.0);
    bytes[u.text] +=
        sizeof(float) * heads * maps *
        (c.encoder_layers * S * S + c.decoder_layers * (T * T + T * S));
  }
  for (const auto& [text, b] : bytes) {
    if (b > static_cast<double>(options.max_attention_bytes)) {
      throw TextError(text,
                      "could need " +
                          std::to_string(static_cast<size_t>(b / (1 << 20))) +
                          " MiB of attention maps, over the limit of " +
                          std::to_string(options.max_attention_bytes >> 20) +
                          " MiB (max_attention_bytes): translate it in smaller "
                          "pieces, without attention, or raise the limit");
    }
  }
}

}  // namespace heed
