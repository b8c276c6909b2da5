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
#include <string>
#include <thread>
#include <vector>

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

heed::TranslateOptions ReadOptions(const val& o) {
  heed::TranslateOptions options;
  auto has = [&o](const char* k) {
    return o.hasOwnProperty(k) && !o[k].isUndefined() && !o[k].isNull();
  };
  if (has("to")) options.to = o["to"].as<std::string>();
  if (has("beam")) options.beam_size = o["beam"].as<unsigned>();
  if (has("nbest")) options.nbest = o["nbest"].as<unsigned>();
  if (has("lengthPenalty"))
    options.length_penalty = o["lengthPenalty"].as<float>();
  if (has("noRepeatNgramSize")) {
    options.no_repeat_ngram_size = o["noRepeatNgramSize"].as<unsigned>();
  }
  if (has("repetitionPenalty")) {
    options.repetition_penalty = o["repetitionPenalty"].as<float>();
  }
  if (has("prefix")) options.target_prefix = o["prefix"].as<std::string>();
  if (has("prefixPieces")) {
    const val pieces = o["prefixPieces"];
    const unsigned n = pieces["length"].as<unsigned>();
    for (unsigned i = 0; i < n; ++i) {
      options.target_prefix_pieces.push_back(pieces[i].as<std::string>());
    }
  }
  if (has("contributions")) {
    options.contributions = o["contributions"].as<bool>();
  }
  if (has("logitLens")) options.logit_lens = o["logitLens"].as<unsigned>();
  if (has("confidence")) options.token_confidence = o["confidence"].as<bool>();
  if (has("attention")) options.attention = o["attention"].as<bool>();
  if (has("maxBatch")) options.max_batch = o["maxBatch"].as<unsigned>();
  if (has("maxAttentionBytes")) {
    const double bytes = o["maxAttentionBytes"].as<double>();
    if (!(bytes >= 0 && bytes <= 4294967295.0)) {
      throw heed::Error("maxAttentionBytes must be in [0, 2^32)");
    }
    options.max_attention_bytes = static_cast<size_t>(bytes);
  }
  if (has("maxInputBytes")) {
    options.max_input_bytes = o["maxInputBytes"].as<unsigned>();
  }
  if (has("maxSentenceTokens")) {
    options.max_sentence_tokens = o["maxSentenceTokens"].as<unsigned>();
  }
  if (has("queryKey")) {  // {kind: 0|1|2, layer, head}
    const val h = o["queryKey"];
    options.query_key =
        heed::HeadRef{static_cast<heed::AttentionKind>(h["kind"].as<int>()),
                      h["layer"].as<unsigned>(), h["head"].as<unsigned>()};
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

val Sentence(const heed::SentenceResult& s) {
  val out = val::object();
  out.set("source", s.source);
  out.set("segment", static_cast<double>(s.segment));
  out.set("sourcePieces", Strings(s.source_pieces));
  out.set("targetPieces", Strings(s.best.pieces));
  out.set("text", s.best.text);
  out.set("score", s.best.score);
  out.set("logProb", s.best.log_prob);
  if (!s.best.token_probs.empty()) {
    out.set("tokenProbabilities", Floats(s.best.token_probs));
    out.set("entropies", Floats(s.best.entropies));
  }
  val nbest = val::array();
  for (const heed::Translation& t : s.nbest) {
    val e = val::object();
    e.set("text", t.text);
    e.set("score", t.score);
    e.set("logProb", t.log_prob);
    e.set("pieces", Strings(t.pieces));
    if (!t.token_probs.empty()) {
      e.set("tokenProbabilities", Floats(t.token_probs));
      e.set("entropies", Floats(t.entropies));
    }
    nbest.call<void>("push", e);
  }
  out.set("nbest", nbest);
  if (s.lens.k > 0) {
    val lens = val::object();
    lens.set("layers", s.lens.layers);
    lens.set("steps", s.lens.steps);
    lens.set("k", s.lens.k);
    val pieces = val::array();
    std::vector<float> probs;
    for (const heed::Alternative& a : s.lens.top) {
      pieces.call<void>("push", a.piece);
      probs.push_back(a.probability);
    }
    lens.set("pieces", pieces);
    lens.set("probabilities", Floats(probs));
    lens.set("tokenProbabilities", Floats(s.lens.token_probs));
    out.set("logitLens", lens);
  }
  if (!s.attention.encoder.empty()) {
    const heed::Attention& a = s.attention;
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
    if (!a.encoder_contributions.empty()) {
      att.set("encoderContributions", Floats(a.encoder_contributions));
      att.set("decoderContributions", Floats(a.decoder_contributions));
      att.set("crossContributions", Floats(a.cross_contributions));
      att.set("sublayerNorms", Floats(a.sublayer_norms));
      att.set("encoderLayerContributions",
              Floats(a.encoder_layer_contributions));
      att.set("decoderLayerContributions",
              Floats(a.decoder_layer_contributions));
      att.set("crossLayerContributions", Floats(a.cross_layer_contributions));
    }
    if (a.query_key) {
      val qk = val::object();
      qk.set("kind", static_cast<int>(a.query_key->kind));
      qk.set("layer", a.query_key->layer);
      qk.set("head", a.query_key->head);
      qk.set("headDim", a.head_dim);
      qk.set("queries", Floats(a.queries));
      qk.set("keys", Floats(a.keys));
      att.set("queryKey", qk);
    }
    out.set("attention", att);
    val alternatives = val::array();
    for (const auto& step : s.alternatives) {
      val options = val::array();
      for (const heed::Alternative& alt : step) {
        val e = val::object();
        e.set("piece", alt.piece);
        e.set("probability", alt.probability);
        options.call<void>("push", e);
      }
      alternatives.call<void>("push", options);
    }
    out.set("alternatives", alternatives);
  }
  return out;
}

// The text as heed splits it: [{text, sentence}], whose texts concatenate to
// the input; sentence is false for the whitespace between sentences.
val SplitSentences(const std::string& text) {
  val out = val::array();
  for (const heed::Segment& s : heed::Translator::Split(text)) {
    val e = val::object();
    e.set("text", s.text);
    e.set("sentence", s.is_sentence);
    out.call<void>("push", e);
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
    try {
      heed::TranslateOptions o = ReadOptions(options);
      o.threads = threads_;
      if (cancelled.typeOf().as<std::string>() == "function") {
        o.cancelled = PollFrom(cancelled);
      }
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
      val timings = val::object();
      timings.set("tokenizeMs", r.timings.tokenize_ms);
      timings.set("encodeMs", r.timings.encode_ms);
      timings.set("decodeMs", r.timings.decode_ms);
      timings.set("totalMs", r.timings.total_ms);
      out.set("timings", timings);
      return out;
    } catch (const heed::Cancelled& e) {
      val r = ErrorResult(e.what());
      r.set("cancelled", true);
      return r;
    } catch (const std::exception& e) {
      return ErrorResult(e.what());
    }
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
  Engine(std::shared_ptr<heed::Translator> t, unsigned threads)
      : translator_(std::move(t)), threads_(threads) {}
  std::shared_ptr<heed::Translator> translator_;
  unsigned threads_ = 1;
};

}  // namespace

EMSCRIPTEN_BINDINGS(heed) {
  emscripten::function("splitSentences", &SplitSentences);
  emscripten::function("heapBytes", &HeapBytes);
  emscripten::class_<Engine>("Engine")
      .class_function("load", &Engine::Load)
      .function("translate", &Engine::Translate)
      .function("positional", &Engine::Positional)
      .function("info", &Engine::Info);
}
