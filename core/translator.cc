#include "core/translator.h"

#include <chrono>
#include <cmath>
#include <exception>
#include <functional>
#include <string_view>
#include <thread>

#include "core/decode/search.h"
#include "core/model/model_file.h"
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

// Runs fn(0..n-1), each on a thread of its own (the calling thread takes
// the first), and rethrows the first exception any of them threw.
void RunParallel(size_t n, const std::function<void(size_t)>& fn) {
  std::vector<std::exception_ptr> errors(n);
  auto guarded = [&](size_t i) {
    try {
      fn(i);
    } catch (...) {
      errors[i] = std::current_exception();
    }
  };
  std::vector<std::thread> threads;
  for (size_t i = 1; i < n; ++i) threads.emplace_back(guarded, i);
  if (n > 0) guarded(0);
  for (std::thread& t : threads) t.join();
  for (const std::exception_ptr& e : errors) {
    if (e) std::rethrow_exception(e);
  }
}

// One piece of work for the decoder: a sentence, or a chunk of a long one.
struct Unit {
  size_t text;     // index of the input text
  size_t segment;  // index of its sentence segment
  std::string source;
  std::vector<int> ids;  // encoder input: [tag] pieces EOS
};

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

const ModelConfig& Translator::config() const { return impl_->model.config(); }
const Model& Translator::model() const { return impl_->model; }
size_t Translator::parameters() const { return impl_->model.parameters(); }
size_t Translator::file_size() const { return impl_->model.file().size(); }

std::vector<std::string> Translator::languages() const {
  std::vector<std::string> out;
  for (const auto& entry : config().target_tags) out.push_back(entry.first);
  return out;
}

Result Translator::Translate(const std::string& text,
                             const TranslateOptions& options) const {
  return std::move(Translate(std::vector<std::string>{text}, options)[0]);
}

std::vector<Result> Translator::Translate(
    const std::vector<std::string>& texts,
    const TranslateOptions& options) const {
  if (impl_ == nullptr) throw Error("translate: the translator was moved from");
  const auto t0 = Clock::now();
  const ModelConfig& c = config();
  const Model& model = impl_->model;

  DecodingOptions decoding;
  decoding.beam_size = options.beam_size;
  decoding.length_penalty = options.length_penalty;
  decoding.max_length_ratio = options.max_length_ratio;
  decoding.max_length_extra = options.max_length_extra;
  decoding.no_repeat_ngram_size = options.no_repeat_ngram_size;
  decoding.repetition_penalty = options.repetition_penalty;
  decoding.nbest = options.nbest;
  CheckOptions(decoding);
  if (options.max_sentence_tokens < 3 || options.max_sentence_tokens > 4096) {
    throw Error("max sentence tokens must be in [3, 4096]");
  }
  if (options.max_batch < 1 || options.max_batch > 1024) {
    throw Error("max batch must be in [1, 1024]");
  }
  if (options.threads < 1 || options.threads > 256) {
    throw Error("threads must be in [1, 256]");
  }
  RunOptions run;
  run.capture_attention = options.attention;
  const size_t layers[3] = {c.encoder_layers, c.decoder_layers,
                            c.decoder_layers};
  for (const HeadRef& h : options.masked_heads) {
    const int kind = static_cast<int>(h.kind);
    if (kind < 0 || kind > 2 || h.layer >= layers[kind] || h.head >= c.heads) {
      throw Error("masked head (kind " + std::to_string(kind) + ", layer " +
                  std::to_string(h.layer) + ", head " + std::to_string(h.head) +
                  ") does not exist in this model");
    }
    auto& flags = run.head_mask.disabled[kind];
    flags.resize(layers[kind] * c.heads, 0);
    flags[h.layer * c.heads + h.head] = 1;
  }
  int tag = -1;
  if (!c.target_tags.empty()) {
    auto it = c.target_tags.find(options.to);
    if (it == c.target_tags.end()) {
      std::string known;
      for (const auto& [lang, piece] : c.target_tags) {
        known += (known.empty() ? "" : ", ") + lang;
      }
      throw Error("target language '" + options.to +
                  "' is not one of this model's: " + known);
    }
    tag = impl_->source.PieceId(it->second);
  }

  // Split every text into sentences and sentences into encoder inputs.
  std::vector<Result> results(texts.size());
  std::vector<std::vector<Segment>> segments(texts.size());
  std::vector<Unit> units;
  const size_t room = options.max_sentence_tokens - (tag >= 0 ? 2 : 1);
  for (size_t i = 0; i < texts.size(); ++i) {
    size_t bad = 0;
    if (!IsValidUtf8(texts[i], &bad)) {
      throw Error("text " + std::to_string(i) + " is not valid UTF-8 (byte " +
                  std::to_string(bad) + ")");
    }
    segments[i] = SplitSentences(texts[i]);
    for (size_t s = 0; s < segments[i].size(); ++s) {
      if (!segments[i][s].is_sentence) continue;
      const std::vector<int> pieces = impl_->source.Encode(segments[i][s].text);
      for (size_t at = 0; at < pieces.size(); at += room) {
        Unit u{i, s, "", {}};
        if (tag >= 0) u.ids.push_back(tag);
        const size_t end = std::min(pieces.size(), at + room);
        std::vector<int> chunk(pieces.begin() + at, pieces.begin() + end);
        u.source = pieces.size() <= room ? segments[i][s].text
                                         : impl_->source.Decode(chunk);
        u.ids.insert(u.ids.end(), chunk.begin(), chunk.end());
        u.ids.push_back(c.eos_id);
        units.push_back(std::move(u));
      }
    }
  }
  const auto t1 = Clock::now();

  // Decode in batches; each unit's result goes to its text and segment.
  std::vector<std::vector<std::vector<std::string>>> translated(texts.size());
  for (size_t i = 0; i < texts.size(); ++i) {
    translated[i].resize(segments[i].size());
  }
  double encode_ms = 0, decode_ms = 0;
  // Batches run `threads` at a time, one per thread; their results are then
  // taken in order, so the output does not depend on the thread count.
  struct Batch {
    size_t first = 0, last = 0;
    EncoderOutput enc;
    std::vector<NBest> found;
    double encode_ms = 0, decode_ms = 0;
  };
  auto run_batch = [&](Batch& b) {
    std::vector<std::vector<int>> ids;
    for (size_t u = b.first; u < b.last; ++u) ids.push_back(units[u].ids);
    const auto e0 = Clock::now();
    b.enc = model.Encode(ids, run);
    const auto e1 = Clock::now();
    b.found = Search(model, b.enc, decoding, run);
    b.encode_ms = Ms(e0, e1);
    b.decode_ms = Ms(e1, Clock::now());
  };
  const size_t per_wave = options.max_batch * options.threads;
  for (size_t wave = 0; wave < units.size(); wave += per_wave) {
    std::vector<Batch> batches;
    for (size_t f = wave; f < std::min(units.size(), wave + per_wave);
         f += options.max_batch) {
      Batch& b = batches.emplace_back();
      b.first = f;
      b.last = std::min(units.size(), f + options.max_batch);
    }
    RunParallel(batches.size(), [&](size_t i) { run_batch(batches[i]); });
    for (const Batch& b : batches) {
      encode_ms += b.encode_ms;
      decode_ms += b.decode_ms;
      const EncoderOutput& enc = b.enc;
      const size_t first = b.first;
      for (size_t u = b.first; u < b.last; ++u) {
        const Unit& unit = units[u];
        const NBest& nbest = b.found[u - first];
        SentenceResult sr;
        sr.source = unit.source;
        sr.source_ids = unit.ids;
        for (int id : unit.ids)
          sr.source_pieces.push_back(impl_->source.Piece(id));
        for (const Hypothesis& h : nbest) {
          Translation tr;
          tr.ids = h.tokens;
          for (int id : h.tokens) tr.pieces.push_back(impl_->target.Piece(id));
          tr.text = impl_->target.Decode(h.tokens);
          tr.score = h.score;
          tr.log_prob = h.log_prob;
          sr.nbest.push_back(std::move(tr));
        }
        sr.best = sr.nbest.at(0);
        if (options.attention) {
          const Hypothesis& h = nbest[0];
          Attention& a = sr.attention;
          a.encoder_layers = c.encoder_layers;
          a.decoder_layers = c.decoder_layers;
          a.heads = c.heads;
          a.source = unit.ids.size();
          a.target = h.tokens.size();
          a.encoder = enc.attention[u - first];
          a.decoder = h.decoder_attention;
          a.cross = h.cross_attention;
          for (const auto& step : h.alternatives) {
            std::vector<Alternative> alts;
            alts.reserve(step.size());
            for (const Candidate& cand : step) {
              alts.push_back(Alternative{impl_->target.Piece(cand.token),
                                         std::exp(cand.log_prob)});
            }
            sr.alternatives.push_back(std::move(alts));
          }
        }
        Result& r = results[unit.text];
        r.target_tokens += sr.best.ids.size();
        translated[unit.text][unit.segment].push_back(sr.best.text);
        r.sentences.push_back(std::move(sr));
      }
    }
  }

  // Reassemble each text with its original spacing and line breaks.
  for (size_t i = 0; i < texts.size(); ++i) {
    for (size_t s = 0; s < segments[i].size(); ++s) {
      if (!segments[i][s].is_sentence) {
        results[i].text += segments[i][s].text;
        continue;
      }
      const auto& parts = translated[i][s];
      for (size_t p = 0; p < parts.size(); ++p) {
        results[i].text += (p ? " " : "") + parts[p];
      }
    }
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
