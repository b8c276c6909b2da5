#include "core/translator.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <string_view>

#include "core/decode/search.h"
#include "core/explain/contributions.h"
#include "core/explain/rollout.h"
#include "core/model/model.h"
#include "core/model/model_file.h"
#include "core/model/positional.h"
#include "core/parallel.h"
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

// Units [first, last) encoded and searched together.
struct Batch {
  size_t first = 0, last = 0;
  EncoderOutput enc;
  std::vector<NBest> found;             // per unit
  std::vector<ForcedCaptures> replays;  // per unit, when NeedsReplay
  double encode_ms = 0, decode_ms = 0;
};

// The decoder's layer-summed contributions and a decoder head's queries and
// keys need the whole target at once: a teacher-forced pass over the best
// hypothesis gives them.
bool NeedsReplay(const RunOptions& run) {
  return run.capture_value_norms ||
         (run.probe.on && run.probe.kind != AttentionKind::kEncoder);
}

ForcedCaptures Replay(const Model& model, const EncoderOutput& enc, size_t b,
                      const Hypothesis& best, const RunOptions& run) {
  ForcedCaptures kept;
  if (best.tokens.empty()) return kept;
  std::vector<int> inputs = {model.config().bos_id};
  inputs.insert(inputs.end(), best.tokens.begin(), best.tokens.end() - 1);
  model.ForcedLogProbs(enc, b, inputs, run, &kept);
  return kept;
}

void RunBatch(const Model& model, const std::vector<Unit>& units,
              const Plan& plan, Batch& b, SpareCache* spare) {
  std::vector<std::vector<int>> ids;
  for (size_t u = b.first; u < b.last; ++u) ids.push_back(units[u].ids);
  const auto e0 = Clock::now();
  b.enc = model.Encode(ids, plan.run);
  const auto e1 = Clock::now();
  b.found = Search(model, b.enc, plan.decoding, plan.run, spare);
  for (size_t i = 0; i < b.found.size() && NeedsReplay(plan.run); ++i) {
    b.replays.push_back(Replay(model, b.enc, i, b.found[i][0], plan.run));
  }
  b.encode_ms = Ms(e0, e1);
  b.decode_ms = Ms(e1, Clock::now());
}

// Decodes the units in waves of up to `threads` batches, one batch per
// thread, and hands each batch to `done` in unit order, so the result does
// not depend on the thread count. A wave's units are shared evenly, so a
// paragraph shorter than `threads` full batches still keeps every thread
// busy.
void DecodeWaves(const Model& model, const std::vector<Unit>& units,
                 const Plan& plan, size_t max_batch, size_t threads,
                 const std::function<void(Batch&)>& done) {
  const size_t per_wave = max_batch * threads;
  std::vector<SpareCache> spares(threads);  // one per thread, wave to wave
  for (size_t wave = 0; wave < units.size(); wave += per_wave) {
    const size_t n = std::min(units.size() - wave, per_wave);
    const size_t size = (n + threads - 1) / threads;  // at most max_batch
    std::vector<Batch> batches;
    for (size_t f = wave; f < wave + n; f += size) {
      Batch& b = batches.emplace_back();
      b.first = f;
      b.last = std::min(wave + n, f + size);
    }
    StopIfCancelled(plan.decoding);
    RunParallel(batches.size(), [&](size_t i) {
      RunBatch(model, units, plan, batches[i], &spares[i]);
    });
    for (Batch& b : batches) done(b);
  }
}

Translation MakeTranslation(const Hypothesis& h, const Tokenizer& target) {
  Translation tr;
  tr.ids = h.tokens;
  for (int id : h.tokens) tr.pieces.push_back(target.Piece(id));
  tr.text = target.Decode(h.tokens);
  tr.score = h.score;
  tr.log_prob = h.log_prob;
  tr.token_probs = h.token_probs;
  tr.entropies = h.entropies;
  return tr;
}

// What the encoder (and a replay of the best hypothesis) captured for one
// unit.
struct EncoderMaps {
  std::vector<float> attention;            // (encoder_layers, heads, S, S)
  std::vector<float> value_norms;          // (encoder_layers, heads, S)
  std::vector<float> cross_value_norms;    // (decoder_layers, heads, S)
  std::vector<float> layer_contributions;  // (encoder_layers, S, S)
  std::vector<float> queries, keys;        // of an encoder head, (S, dh)
  ForcedCaptures replay;                   // empty unless NeedsReplay
};

// Unit i of batch b's captures, moved out of the batch.
EncoderMaps TakeMaps(Batch& b, size_t i) {
  EncoderOutput& enc = b.enc;
  EncoderMaps maps;
  auto take = [i](std::vector<std::vector<float>>& from,
                  std::vector<float>* to) {
    if (!from.empty()) *to = std::move(from[i]);
  };
  take(enc.attention, &maps.attention);
  take(enc.value_norms, &maps.value_norms);
  take(enc.cross_value_norms, &maps.cross_value_norms);
  take(enc.layer_contributions, &maps.layer_contributions);
  take(enc.queries, &maps.queries);
  take(enc.keys, &maps.keys);
  if (!b.replays.empty()) maps.replay = std::move(b.replays[i]);
  return maps;
}

// A masked head adds nothing, whatever it attended to: its blocks of
// (layers, heads, block) contribution maps become 0.
void ZeroMasked(const HeadMask& mask, AttentionKind kind, size_t layers,
                size_t heads, size_t block, std::vector<float>* maps) {
  const uint8_t* flags = mask.Layer(kind, 0, heads);
  for (size_t lh = 0; flags != nullptr && lh < layers * heads; ++lh) {
    if (flags[lh] != 0) {
      std::fill_n(maps->begin() + lh * block, block, 0.0f);
    }
  }
}

// Moves the best hypothesis's attention (and the unit's encoder captures)
// into the sentence result, with what is derived from them.
void MoveAttention(const ModelConfig& c, const RunOptions& run,
                   const Tokenizer& target, EncoderMaps&& maps,
                   Hypothesis&& best, SentenceResult* sr) {
  Attention& a = sr->attention;
  a.encoder_layers = c.encoder_layers;
  a.decoder_layers = c.decoder_layers;
  a.heads = c.heads;
  a.source = sr->source_ids.size();
  a.target = best.tokens.size();
  a.encoder = std::move(maps.attention);
  a.rollout = AttentionRollout(a.encoder, a.encoder_layers, a.heads, a.source);
  a.decoder = std::move(best.decoder_attention);
  a.cross = std::move(best.cross_attention);
  a.sublayer_norms = std::move(best.sublayer_norms);
  if (!maps.value_norms.empty()) {
    a.encoder_contributions =
        NormWeighted(a.encoder, maps.value_norms, a.encoder_layers, a.heads,
                     a.source, a.source);
    a.cross_contributions =
        NormWeighted(a.cross, maps.cross_value_norms, a.decoder_layers, a.heads,
                     a.target, a.source);
    a.decoder_contributions =
        NormWeighted(a.decoder, best.decoder_value_norms, a.decoder_layers,
                     a.heads, a.target, a.target);
    const HeadMask& m = run.head_mask;
    ZeroMasked(m, AttentionKind::kEncoder, a.encoder_layers, a.heads,
               a.source * a.source, &a.encoder_contributions);
    ZeroMasked(m, AttentionKind::kDecoder, a.decoder_layers, a.heads,
               a.target * a.target, &a.decoder_contributions);
    ZeroMasked(m, AttentionKind::kCross, a.decoder_layers, a.heads,
               a.target * a.source, &a.cross_contributions);
    a.encoder_layer_contributions = std::move(maps.layer_contributions);
    a.decoder_layer_contributions =
        std::move(maps.replay.self_layer_contributions);
    a.cross_layer_contributions =
        std::move(maps.replay.cross_layer_contributions);
  }
  if (run.probe.on) {
    a.query_key = HeadRef{run.probe.kind, run.probe.layer, run.probe.head};
    a.head_dim = c.head_dim();
    const bool encoder = run.probe.kind == AttentionKind::kEncoder;
    a.queries = std::move(encoder ? maps.queries : maps.replay.queries);
    a.keys = std::move(encoder ? maps.keys : maps.replay.keys);
  }
  for (const auto& step : best.alternatives) {
    std::vector<Alternative> alts;
    alts.reserve(step.size());
    for (const Candidate& cand : step) {
      alts.push_back(
          Alternative{target.Piece(cand.token), std::exp(cand.log_prob)});
    }
    sr->alternatives.push_back(std::move(alts));
  }
}

SentenceResult MakeSentenceResult(const ModelConfig& c, const Tokenizer& source,
                                  const Tokenizer& target, const Unit& unit,
                                  NBest&& nbest, EncoderMaps&& maps,
                                  const RunOptions& run) {
  SentenceResult sr;
  sr.source = unit.source;
  sr.segment = unit.segment;
  sr.source_ids = unit.ids;
  for (int id : unit.ids) sr.source_pieces.push_back(source.Piece(id));
  for (const Hypothesis& h : nbest) {
    sr.nbest.push_back(MakeTranslation(h, target));
  }
  sr.best = sr.nbest.at(0);
  const Hypothesis& best = nbest[0];
  if (!best.lens.empty()) {
    LogitLens& lens = sr.lens;
    lens.layers = c.decoder_layers;
    lens.steps = best.tokens.size();
    lens.k = best.lens.size() / (lens.layers * lens.steps);
    for (const Candidate& cand : best.lens) {
      lens.top.push_back(
          Alternative{target.Piece(cand.token), std::exp(cand.log_prob)});
    }
    lens.token_probs = best.lens_token_probs;
  }
  if (run.capture_attention) {
    MoveAttention(c, run, target, std::move(maps), std::move(nbest[0]), &sr);
  }
  return sr;
}

// Each text with its original spacing and line breaks; sentences translated
// in pieces are joined with a space.
void Reassemble(
    const std::vector<std::vector<Segment>>& segments,
    const std::vector<std::vector<std::vector<std::string>>>& translated,
    std::vector<Result>* results) {
  for (size_t i = 0; i < segments.size(); ++i) {
    for (size_t s = 0; s < segments[i].size(); ++s) {
      if (!segments[i][s].is_sentence) {
        (*results)[i].text += segments[i][s].text;
        continue;
      }
      const auto& parts = translated[i][s];
      for (size_t p = 0; p < parts.size(); ++p) {
        (*results)[i].text += (p ? " " : "") + parts[p];
      }
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
  for (const auto& [lang, tag] : c.target_tags) {
    if (source.PieceId(tag) < 0) {
      throw Error("model file '" + f.source() + "': language tag '" + tag +
                  "' for '" + lang + "' is not a source piece");
    }
  }
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

std::vector<Segment> Translator::Split(std::string_view text) {
  return SplitSentences(text);
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
    heed::PositionalEncoding(p, d, pe.data() + p * d);
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
  const auto t0 = Clock::now();
  Plan plan = PlanRequest(config(), impl_->source, options);
  Work work = MakeUnits(texts, plan, impl_->source, config().eos_id);
  plan.decoding.forced_prefix = ForcedPrefix(options, impl_->target, config());
  if (!plan.decoding.forced_prefix.empty()) {
    std::vector<size_t> units(texts.size(), 0);
    for (const Unit& u : work.units) ++units[u.text];
    for (size_t i = 0; i < texts.size(); ++i) {
      if (units[i] != 1) {
        throw TextError(i, "has " + std::to_string(units[i]) +
                               " sentences; a target prefix needs exactly one "
                               "sentence");
      }
    }
  }
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
  DecodeWaves(impl_->model, work.units, plan, plan.batch, options.threads,
              [&](Batch& b) {
                encode_ms += b.encode_ms;
                decode_ms += b.decode_ms;
                for (size_t u = b.first; u < b.last; ++u) {
                  const Unit& unit = work.units[u];
                  SentenceResult sr =
                      MakeSentenceResult(config(), impl_->source, impl_->target,
                                         unit, std::move(b.found[u - b.first]),
                                         TakeMaps(b, u - b.first), plan.run);
                  if (on_sentence) on_sentence(unit.text, sr);
                  Result& r = results[unit.text];
                  r.target_tokens += sr.best.ids.size();
                  translated[unit.text][unit.segment].push_back(sr.best.text);
                  r.sentences.push_back(std::move(sr));
                }
              });
  Reassemble(work.segments, translated, &results);

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
