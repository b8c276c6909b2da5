#include "core/translator.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <string_view>

#include "core/assemble.h"
#include "core/batch.h"
#include "core/explain/erasure.h"
#include "core/html/align.h"
#include "core/html/translate.h"
#include "core/model/model.h"
#include "core/model/model_file.h"
#include "core/model/positional.h"
#include "core/plan.h"
#include "core/text/sentences.h"
#include "core/text/tokenizer.h"
#include "core/text/utf8.h"

namespace heed {
namespace {

using Clock = std::chrono::steady_clock;

double Ms(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

Tokenizer ReadTokenizer(const ModelFile& file, const std::string& name) {
  const TensorInfo* t = file.Find(name);
  if (t == nullptr || t->dtype != DType::kU8) {
    throw Error("model file '" + file.source() + "': no U8 tensor '" + name +
                "'");
  }
  return Tokenizer::FromSerialized(
      std::string_view(reinterpret_cast<const char*>(file.data(*t)), t->bytes),
      "model file '" + file.source() + "': tensor '" + name + "'");
}

// The config's special ids are the tokenizers' own, and each language tag
// is an ordinary source piece: a config that says otherwise contradicts the
// file.
void CheckSpecialIds(const ModelConfig& c, const Tokenizer& source,
                     const Tokenizer& target, const std::string& where) {
  const struct {
    const char* field;
    int config, tokenizer;
  } ids[] = {{"pad_id", c.pad_id, target.pad_id()},
             {"bos_id", c.bos_id, target.bos_id()},
             {"eos_id", c.eos_id, target.eos_id()},
             {"unk_id", c.unk_id, target.unk_id()}};
  for (const auto& id : ids) {
    if (id.tokenizer >= 0 && id.config != id.tokenizer) {
      throw Error(where + "config " + id.field + " " +
                  std::to_string(id.config) + " is not the tokenizer's (" +
                  std::to_string(id.tokenizer) + ")");
    }
  }
  for (const auto& [lang, tag] : c.target_tags) {
    const int id = source.PieceId(tag);
    if (id < 0 || id == source.unk_id() || id == source.eos_id() ||
        id == source.bos_id() || id == source.pad_id()) {
      throw Error(where + "language tag '" + tag + "' for '" + lang +
                  "' is not an ordinary source piece");
    }
  }
}

// The pieces no text is made of: BOS, EOS and the language tags.
std::vector<std::string> SpecialPieces(const ModelConfig& c,
                                       const Tokenizer& target) {
  std::vector<std::string> pieces = {target.Piece(c.eos_id),
                                     target.Piece(c.bos_id)};
  for (const auto& entry : c.target_tags) pieces.push_back(entry.second);
  return pieces;
}

// With erasure asked for: each source piece's effect on each piece of the
// best translation. The tag and EOS are not erased.
void AddErasure(const Model& model, const Plan& plan, SentenceResult* sr) {
  if (plan.erasure == ErasureMode::kOff) return;
  StopIfCancelled(plan.decoding);
  const ModelConfig& c = model.config();
  std::vector<uint8_t> erasable;
  for (int id : sr->source_ids) {
    erasable.push_back(id != c.eos_id && id != c.bos_id && id != c.pad_id &&
                       id != plan.tag);
  }
  sr->erasure_mode = ErasureModeName(plan.erasure);
  sr->erasure = ErasureEffects(model, sr->source_ids, erasable, sr->best.ids,
                               plan.erasure, plan.run);
}

// Which cross-attention aligns words best: the decoder layer below the last,
// averaged over its heads, agrees most often with erasure on the test sets
// (docs/faithfulness.md). HTML mode reads the last layer, which placed
// hand-placed tags best (docs/html.md).
constexpr AlignWith kAlignWith{-2};

// Each text's word alignment; the maps it read are dropped unless asked for.
void AddAlignments(const std::vector<std::string>& texts,
                   const TranslateOptions& options,
                   const std::vector<std::string>& special,
                   std::vector<Result>* results) {
  for (size_t i = 0; i < texts.size(); ++i) {
    Result& r = (*results)[i];
    const WordAlignment al =
        AlignWords(texts[i], r.text, r.sentences, special, kAlignWith);
    for (size_t t = 0; t < al.link.size(); ++t) {
      if (al.link[t] >= 0) r.alignment.emplace_back(al.link[t], t);
    }
    if (options.attention || options.contributions || options.query_key) {
      continue;
    }
    for (SentenceResult& sr : r.sentences) {
      sr.attention = Attention{};
      sr.alternatives.clear();
    }
  }
}

}  // namespace

struct Translator::Impl {
  Model model;
  Tokenizer source;
  Tokenizer target;
};

Translator::Translator(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Translator::Translator(Translator&&) noexcept = default;
Translator& Translator::operator=(Translator&&) noexcept = default;
Translator::~Translator() = default;

std::unique_ptr<Translator::Impl> Translator::Build(ModelFile file) {
  Model model = Model::Load(std::move(file));
  const ModelFile& f = model.file();
  Tokenizer source = ReadTokenizer(f, "tokenizer.source");
  Tokenizer target = ReadTokenizer(f, f.Find("tokenizer.target") != nullptr
                                          ? "tokenizer.target"
                                          : "tokenizer.source");
  const ModelConfig& c = model.config();
  if (source.size() != c.source_vocab || target.size() != c.target_vocab) {
    throw Error("model file '" + f.source() + "': tokenizer vocabularies (" +
                std::to_string(source.size()) + ", " +
                std::to_string(target.size()) + ") differ from the model's (" +
                std::to_string(c.source_vocab) + ", " +
                std::to_string(c.target_vocab) + ")");
  }
  CheckSpecialIds(c, source, target, "model file '" + f.source() + "': ");
  return std::unique_ptr<Impl>(
      new Impl{std::move(model), std::move(source), std::move(target)});
}

Translator Translator::FromFile(const std::string& path) {
  return Translator(Build(ModelFile::Open(path)));
}

Translator Translator::FromBytes(std::vector<uint8_t> bytes) {
  return Translator(Build(ModelFile::FromBytes(std::move(bytes))));
}

void Translator::CheckOptions(const TranslateOptions& options) {
  CheckLimits(options);
}

std::vector<Segment> Translator::Split(std::string_view text) const {
  if (impl_ == nullptr) throw Error("split: the translator was moved from");
  return SplitForModel(text, impl_->source);
}

std::vector<float> Translator::PositionalEncoding(size_t positions) const {
  constexpr size_t kMaxPositions = 4096;
  if (positions > kMaxPositions) {
    throw Error("positional encoding: at most " +
                std::to_string(kMaxPositions) + " positions, not " +
                std::to_string(positions));
  }
  const size_t d = config().d_model;
  std::vector<float> pe(positions * d);
  for (size_t p = 0; p < positions; ++p) {
    heed::PositionalEncoding(p, d, config().positions, pe.data() + p * d);
  }
  return pe;
}

const ModelConfig& Translator::config() const { return impl_->model.config(); }
const ModelFile& Translator::file() const { return impl_->model.file(); }
size_t Translator::parameters() const { return impl_->model.parameters(); }
size_t Translator::file_size() const { return impl_->model.file().size(); }

std::vector<std::string> Translator::languages() const {
  std::vector<std::string> out;
  for (const auto& entry : config().target_tags) out.push_back(entry.first);
  return out;
}

Result Translator::Translate(const std::string& text,
                             const TranslateOptions& options,
                             const SentenceCallback& on_sentence) const {
  return std::move(
      Translate(std::vector<std::string>{text}, options, on_sentence)[0]);
}

// Plan the request, cut the texts into units, decode them in waves of
// batches, turn each unit's hypotheses into a sentence result, reassemble.
std::vector<Result> Translator::Translate(
    const std::vector<std::string>& texts, const TranslateOptions& options,
    const SentenceCallback& on_sentence) const {
  if (impl_ == nullptr) throw Error("translate: the translator was moved from");
  if (options.html) {
    CheckLimits(options);
    // The limit holds for the HTML, markup included, not only its text.
    for (size_t i = 0; i < texts.size(); ++i) {
      CheckInputBytes(i, texts[i].size(), options.max_input_bytes,
                      " bytes of HTML");
    }
    return TranslateHtml(
        texts, options, on_sentence, SpecialPieces(config(), impl_->target),
        [this](const std::vector<std::string>& blocks,
               const TranslateOptions& plain, const SentenceCallback& cb) {
          return Translate(blocks, plain, cb);
        });
  }
  const auto t0 = Clock::now();
  Plan plan = PlanRequest(config(), impl_->source, options);
  Work work = MakeUnits(texts, plan, impl_->source, config().eos_id);
  plan.decoding.forced_prefix = ForcedPrefix(options, impl_->target, config());
  CheckPrefix(work, texts.size(), plan.decoding);
  if (plan.run.capture_attention) {
    CheckAttentionSize(config(), work.units, options);
  }
  const auto t1 = Clock::now();

  std::vector<Result> results(texts.size());
  std::vector<std::vector<std::vector<std::string>>> translated(texts.size());
  for (size_t i = 0; i < texts.size(); ++i) {
    translated[i].resize(work.segments[i].size());
  }
  double encode_ms = 0, decode_ms = 0;
  const std::vector<std::vector<int>> no_copies;  // copying unknowns off
  DecodeWaves(impl_->model, work.units, plan, plan.batch, options.threads,
              [&](Batch& b) {
                encode_ms += b.encode_ms;
                decode_ms += b.decode_ms;
                for (size_t u = b.first; u < b.last; ++u) {
                  const Unit& unit = work.units[u];
                  const size_t i = u - b.first;
                  SentenceResult sr = MakeSentenceResult(
                      config(), impl_->source, impl_->target, unit,
                      std::move(b.found[i]),
                      b.copies.empty() ? no_copies : b.copies[i],
                      TakeMaps(b, i), plan.run);
                  AddErasure(impl_->model, plan, &sr);
                  if (on_sentence) on_sentence(unit.text, sr);
                  Result& r = results[unit.text];
                  r.target_tokens += sr.best.ids.size();
                  translated[unit.text][unit.segment].push_back(sr.best.text);
                  r.sentences.push_back(std::move(sr));
                }
              });
  Reassemble(work.segments, translated, &results);
  if (options.alignments) {
    AddAlignments(texts, options, SpecialPieces(config(), impl_->target),
                  &results);
  }

  const auto t2 = Clock::now();
  for (Result& r : results) {
    r.timings.tokenize_ms = Ms(t0, t1);
    r.timings.encode_ms = encode_ms;
    r.timings.decode_ms = decode_ms;
    r.timings.total_ms = Ms(t0, t2);
  }
  return results;
}

}  // namespace heed
