// Embind bindings: a thin layer over core/translator.h that converts types.
// No C++ exception crosses into JavaScript: every heed::Error becomes a
// result object {error: message}, which the JS wrapper turns into a
// rejected promise.
#include <emscripten/bind.h>
#include <emscripten/heap.h>
#include <emscripten/val.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "core/option_table.h"
#include "core/result_json.h"
#include "core/translator.h"

namespace {

using emscripten::val;

val Floats(const std::vector<float>& v) {
  return val::global("Float32Array")
      .new_(emscripten::typed_memory_view(v.size(), v.data()));
}

val Strings(const std::vector<std::string>& v) {
  val out = val::array();
  for (const std::string& s : v) out.call<void>("push", s);
  return out;
}

val ErrorResult(const std::string& message) {
  val r = val::object();
  r.set("error", message);
  return r;
}

// Runs one translating call: its result, or {error} for what it threw and
// {error, cancelled: true} when its poll ended it.
template <typename Call>
val Guarded(const Call& call) {
  try {
    return call();
  } catch (const heed::Cancelled& e) {
    val r = ErrorResult(e.what());
    r.set("cancelled", true);
    return r;
  } catch (const std::exception& e) {
    return ErrorResult(e.what());
  }
}

// One option of the table (core/option_table.h) from its JavaScript value;
// numbers pass as doubles so that none wraps on its way in.
void ReadTableOption(const heed::OptionSpec& spec, const val& v,
                     heed::TranslateOptions* options) {
  switch (spec.kind) {
    case heed::OptionKind::kText:
      options->*spec.text = v.as<std::string>();
      break;
    case heed::OptionKind::kSwitch:
      heed::SetOptionNumber(spec, v.as<bool>() ? 1 : 0, options);
      break;
    default:
      heed::SetOptionNumber(spec, v.as<double>(), options);
  }
}

heed::TranslateOptions ReadOptions(const val& o) {
  heed::TranslateOptions options;
  auto has = [&o](const char* k) {
    return o.hasOwnProperty(k) && !o[k].isUndefined() && !o[k].isNull();
  };
  for (const heed::OptionSpec& spec : heed::OptionTable()) {
    if (spec.js != nullptr && has(spec.js)) {
      ReadTableOption(spec, o[spec.js], &options);
    }
  }
  if (has("prefixPieces")) {
    const val pieces = o["prefixPieces"];
    const unsigned n = pieces["length"].as<unsigned>();
    for (unsigned i = 0; i < n; ++i) {
      options.target_prefix_pieces.push_back(pieces[i].as<std::string>());
    }
  }
  if (has("queryKey")) {  // {kind: 0|1|2, layer, head}
    const val h = o["queryKey"];
    options.query_key =
        heed::HeadRef{static_cast<heed::AttentionKind>(h["kind"].as<int>()),
                      h["layer"].as<unsigned>(), h["head"].as<unsigned>()};
  }
  if (has("switchOff")) {  // [{sublayer: 0..4, layer}]
    const val list = o["switchOff"];
    const unsigned n = list["length"].as<unsigned>();
    for (unsigned i = 0; i < n; ++i) {
      options.switched_off.push_back(
          {static_cast<heed::SublayerKind>(list[i]["sublayer"].as<int>()),
           list[i]["layer"].as<unsigned>()});
    }
  }
  if (has("maskHeads")) {  // [{kind: 0|1|2, layer, head}]
    const val heads = o["maskHeads"];
    const unsigned n = heads["length"].as<unsigned>();
    for (unsigned i = 0; i < n; ++i) {
      const val h = heads[i];
      options.masked_heads.push_back(
          {static_cast<heed::AttentionKind>(h["kind"].as<int>()),
           h["layer"].as<unsigned>(), h["head"].as<unsigned>()});
    }
  }
  return options;
}

// A hypothesis's text, score and pieces, and its confidence when asked for.
void SetTranslation(const heed::Translation& t, const char* pieces_key,
                    val* out) {
  out->set("text", t.text);
  out->set("score", t.score);
  out->set("logProb", t.log_prob);
  out->set(pieces_key, Strings(t.pieces));
  if (!t.token_probs.empty()) {
    out->set("tokenProbabilities", Floats(t.token_probs));
    out->set("entropies", Floats(t.entropies));
  }
}

val Lens(const heed::LogitLens& l) {
  val lens = val::object();
  lens.set("layers", l.layers);
  lens.set("steps", l.steps);
  lens.set("k", l.k);
  val pieces = val::array();
  std::vector<float> probs;
  for (const heed::Alternative& a : l.top) {
    pieces.call<void>("push", a.piece);
    probs.push_back(a.probability);
  }
  lens.set("pieces", pieces);
  lens.set("probabilities", Floats(probs));
  lens.set("tokenProbabilities", Floats(l.token_probs));
  return lens;
}

val QueryKey(const heed::Attention& a) {
  val qk = val::object();
  qk.set("kind", static_cast<int>(a.query_key->kind));
  qk.set("layer", a.query_key->layer);
  qk.set("head", a.query_key->head);
  qk.set("headDim", a.head_dim);
  qk.set("queries", Floats(a.queries));
  qk.set("keys", Floats(a.keys));
  return qk;
}

// roles[layer][head] = {confidence, previous, same, next, rare, boundary,
// distance, rows, role}.
val Roles(const std::vector<heed::HeadRole>& roles, size_t heads) {
  val layers = val::array();
  for (size_t k = 0; k < roles.size(); k += heads) {
    val layer = val::array();
    for (size_t h = 0; h < heads; ++h) {
      const heed::HeadRole& r = roles[k + h];
      val o = val::object();
      for (const heed::HeadRoleField& f : heed::kHeadRoleFields) {
        o.set(f.name, r.*f.value);
      }
      o.set("rows", r.rows);
      o.set("role", heed::RoleName(r));
      layer.call<void>("push", o);
    }
    layers.call<void>("push", layer);
  }
  return layers;
}

val AttentionMaps(const heed::Attention& a) {
  val att = val::object();
  att.set("encoderLayers", a.encoder_layers);
  att.set("decoderLayers", a.decoder_layers);
  att.set("heads", a.heads);
  att.set("source", a.source);
  att.set("target", a.target);
  att.set("encoder", Floats(a.encoder));
  att.set("decoder", Floats(a.decoder));
  att.set("cross", Floats(a.cross));
  att.set("rollout", Floats(a.rollout));
  val roles = val::object();
  roles.set("encoder", Roles(a.roles.encoder, a.heads));
  roles.set("decoder", Roles(a.roles.decoder, a.heads));
  roles.set("cross", Roles(a.roles.cross, a.heads));
  att.set("roles", roles);
  if (!a.encoder_contributions.empty()) {
    att.set("encoderContributions", Floats(a.encoder_contributions));
    att.set("decoderContributions", Floats(a.decoder_contributions));
    att.set("crossContributions", Floats(a.cross_contributions));
    att.set("sublayerNorms", Floats(a.sublayer_norms));
    att.set("encoderLayerContributions", Floats(a.encoder_layer_contributions));
    att.set("decoderLayerContributions", Floats(a.decoder_layer_contributions));
    att.set("crossLayerContributions", Floats(a.cross_layer_contributions));
  }
  if (!a.alti_encoder.empty()) {
    att.set("altiEncoder", Floats(a.alti_encoder));
    att.set("alti", Floats(a.alti));
  }
  if (a.query_key) att.set("queryKey", QueryKey(a));
  return att;
}

val Alternatives(const std::vector<std::vector<heed::Alternative>>& steps) {
  val alternatives = val::array();
  for (const auto& step : steps) {
    val options = val::array();
    for (const heed::Alternative& alt : step) {
      val e = val::object();
      e.set("piece", alt.piece);
      e.set("probability", alt.probability);
      options.call<void>("push", e);
    }
    alternatives.call<void>("push", options);
  }
  return alternatives;
}

val Sentence(const heed::SentenceResult& s) {
  val out = val::object();
  out.set("source", s.source);
  out.set("segment", static_cast<double>(s.segment));
  out.set("sourcePieces", Strings(s.source_pieces));
  SetTranslation(s.best, "targetPieces", &out);
  val nbest = val::array();
  for (const heed::Translation& t : s.nbest) {
    val e = val::object();
    SetTranslation(t, "pieces", &e);
    nbest.call<void>("push", e);
  }
  out.set("nbest", nbest);
  if (s.lens.k > 0) out.set("logitLens", Lens(s.lens));
  if (!s.erasure_mode.empty()) {
    val erasure = val::object();
    erasure.set("mode", s.erasure_mode);
    erasure.set("effect", Floats(s.erasure));
    out.set("erasure", erasure);
  }
  if (!s.attention.encoder.empty()) {
    out.set("attention", AttentionMaps(s.attention));
    out.set("alternatives", Alternatives(s.alternatives));
  }
  return out;
}

// A JavaScript `cancelled` as DecodingOptions::cancelled. Only the calling
// thread may call into JavaScript; the threaded engine's other threads read
// what its last poll saw (it polls each decoding step of its own batch and
// before each wave of batches).
std::function<bool()> PollFrom(const val& cancelled) {
  auto seen = std::make_shared<std::atomic<bool>>(false);
  return [&cancelled, seen, caller = std::this_thread::get_id()] {
    if (std::this_thread::get_id() == caller) {
      seen->store(cancelled().as<bool>());
    }
    return seen->load();
  };
}

// The wasm heap's size in bytes (HEAPU8.length can be stale in the calling
// thread when another thread grew the memory).
// The options table as JavaScript sees it (tests check wasm/options.js and
// heed.d.ts against it): [{name, kind, min, max, aboveMin, default}].
val OptionTable() {
  static const char* const kKinds[] = {"count", "real", "switch", "text"};
  const heed::TranslateOptions defaults;
  val out = val::array();
  for (const heed::OptionSpec& spec : heed::OptionTable()) {
    if (spec.js == nullptr) continue;
    val e = val::object();
    e.set("name", std::string(spec.js));
    e.set("kind", std::string(kKinds[static_cast<int>(spec.kind)]));
    e.set("min", spec.min);
    e.set("max", spec.max);
    e.set("aboveMin", spec.above_min);
    if (spec.kind == heed::OptionKind::kText) {
      e.set("default", defaults.*spec.text);
    } else {
      e.set("default", heed::OptionValue(spec, defaults));
    }
    out.call<void>("push", e);
  }
  return out;
}

double HeapBytes() { return static_cast<double>(emscripten_get_heap_size()); }

class Engine {
 public:
  // Loads a model from the bytes of a Uint8Array (copied); its translations
  // use `threads` threads (1 unless the engine is the threaded build).
  static val Load(const val& bytes, unsigned threads) {
    try {
      auto t = std::make_shared<heed::Translator>(heed::Translator::FromBytes(
          emscripten::convertJSArrayToNumberVector<uint8_t>(bytes)));
      val r = val::object();
      r.set("engine", Engine(std::move(t), threads));
      return r;
    } catch (const std::exception& e) {
      return ErrorResult(e.what());
    }
  }

  // With a function on_sentence, each sentence's result is converted once,
  // handed to it as soon as its batch is done and kept for the result. The
  // function must not throw (heed.js wraps the user's).
  // A function `cancelled` is polled between decoding steps; when it
  // returns true the call ends with {error, cancelled: true}.
  val Translate(const std::string& text, const val& options,
                const val& on_sentence, const val& cancelled) const {
    return Guarded([&] {
      const heed::TranslateOptions o = CallOptions(options, cancelled);
      val sentences = val::array();
      heed::SentenceCallback each;
      if (on_sentence.typeOf().as<std::string>() == "function") {
        each = [&](size_t, const heed::SentenceResult& s) {
          val converted = Sentence(s);
          sentences.call<void>("push", converted);
          on_sentence(converted);
        };
      }
      const heed::Result r = translator_->Translate(text, o, each);
      if (!each) {
        for (const auto& s : r.sentences)
          sentences.call<void>("push", Sentence(s));
      }
      val out = val::object();
      out.set("text", r.text);
      out.set("sentences", sentences);
      out.set("targetTokenCount", r.target_tokens);
      if (o.html) {
        val tags = val::array();
        for (const heed::HtmlTag& t : r.tags) {
          val tag = val::object();
          tag.set("tag", t.tag);
          tag.set("source", t.source);
          tag.set("target", t.target);
          tags.call<void>("push", tag);
        }
        out.set("tags", tags);
      }
      if (o.alignments) {
        val pairs = val::array();
        for (const auto& [s, t] : r.alignment) {
          val pair = val::array();
          pair.call<void>("push", s);
          pair.call<void>("push", t);
          pairs.call<void>("push", pair);
        }
        out.set("alignment", pairs);
      }
      val timings = val::object();
      timings.set("tokenizeMs", r.timings.tokenize_ms);
      timings.set("encodeMs", r.timings.encode_ms);
      timings.set("decodeMs", r.timings.decode_ms);
      timings.set("totalMs", r.timings.total_ms);
      out.set("timings", timings);
      return out;
    });
  }

  // The text's result as JSON text, by the CLI's writer (with attention and
  // confidences, as --attention-json): {json} or {error[, cancelled]}.
  val ExportJson(const std::string& text, const val& options,
                 const val& cancelled) const {
    return Guarded([&] {
      heed::TranslateOptions o = CallOptions(options, cancelled);
      o.attention = true;
      o.token_confidence = true;
      std::ostringstream json;
      heed::WriteResultJson(translator_->Translate(text, o), json);
      val r = val::object();
      r.set("json", json.str());
      return r;
    });
  }

  // The sinusoidal encoding the model adds at positions 0..positions-1:
  // Float32Array (positions, d_model), row-major.
  val Positional(unsigned positions) const {
    try {
      val r = val::object();
      r.set("values", Floats(translator_->PositionalEncoding(positions)));
      r.set("dims", static_cast<double>(translator_->config().d_model));
      return r;
    } catch (const std::exception& e) {
      return ErrorResult(e.what());
    }
  }

  // The text as Translate splits it: [{text, sentence}], whose texts
  // concatenate to the input; sentence is false for the whitespace between
  // sentences and for text the model reads as nothing.
  val Split(const std::string& text) const {
    val out = val::array();
    for (const heed::Segment& s : translator_->Split(text)) {
      val e = val::object();
      e.set("text", s.text);
      e.set("sentence", s.is_sentence);
      out.call<void>("push", e);
    }
    return out;
  }

  val Info() const {
    val out = val::object();
    // The config as an object, in the schema of ConfigToJson (heed info).
    out.set("config", val::global("JSON").call<val>(
                          "parse", heed::ConfigToJson(translator_->config())));
    out.set("languages", Strings(translator_->languages()));
    out.set("parameters", static_cast<double>(translator_->parameters()));
    out.set("fileSize", static_cast<double>(translator_->file_size()));
    return out;
  }

 private:
  // A call's options: the page's, on this engine's threads, polling
  // `cancelled` between decoding steps when it is a function.
  heed::TranslateOptions CallOptions(const val& options,
                                     const val& cancelled) const {
    heed::TranslateOptions o = ReadOptions(options);
    o.threads = threads_;
    if (cancelled.typeOf().as<std::string>() == "function") {
      o.cancelled = PollFrom(cancelled);
    }
    return o;
  }

  Engine(std::shared_ptr<heed::Translator> t, unsigned threads)
      : translator_(std::move(t)), threads_(threads) {}
  std::shared_ptr<heed::Translator> translator_;
  unsigned threads_ = 1;
};

}  // namespace

EMSCRIPTEN_BINDINGS(heed) {
  emscripten::function("heapBytes", &HeapBytes);
  emscripten::function("optionTable", &OptionTable);
  emscripten::class_<Engine>("Engine")
      .class_function("load", &Engine::Load)
      .function("translate", &Engine::Translate)
      .function("positional", &Engine::Positional)
      .function("exportJson", &Engine::ExportJson)
      .function("split", &Engine::Split)
      .function("info", &Engine::Info);
}
