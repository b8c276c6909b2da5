// The heed command line.
//
//   heed translate --model FILE [--to LANG] [--beam N] [--nbest N]
//                  [--length-penalty A] [--max-batch N] [--threads N]
//                  [--attention-json FILE]      lines on stdin -> stdout
//   heed info --model FILE                      config and tensor table
//   heed quantize --model FILE --out FILE       int8 copy of a model
//
// Exit status: 0 success, 1 a failure (model, input, output; a line that
// cannot be translated is reported and the others still are), 2 a usage
// error.
#include <signal.h>

#include <algorithm>
#include <atomic>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/model/model_file.h"
#include "core/model/quantize.h"
#include "core/translator.h"

namespace {

constexpr const char* kUsage =
    "usage:\n"
    "  heed translate --model FILE [--to LANG] [--beam N] [--nbest N]\n"
    "                 [--length-penalty A] [--max-batch N] [--threads N]\n"
    "                 [--no-repeat-ngram-size N] [--repetition-penalty P]\n"
    "                 [--prefix TEXT] [--logit-lens K] [--contributions 1]\n"
    "                 [--attention-json FILE]\n"
    "      Translates each line of stdin to a line of stdout. With --nbest N\n"
    "      > 1 it writes N lines per input: INDEX ||| TEXT ||| SCORE.\n"
    "      --threads N decodes N batches at once, one per thread.\n"
    "      --max-input-bytes N: a longer line is refused (default 1 MiB).\n"
    "      --no-repeat-ngram-size N: no N-gram occurs twice in a translation\n"
    "      (default 3; 0 is off); --repetition-penalty P: tokens already\n"
    "      produced have their log-probability multiplied by P (default 1,\n"
    "      off).\n"
    "      --prefix TEXT: every translation starts with TEXT (each input line\n"
    "      must then be one sentence). --logit-lens K adds each decoder\n"
    "      layer's top K pieces per step to the attention JSON;\n"
    "      --contributions 1 the norm-based contributions.\n"
    "  heed info --model FILE\n"
    "      Prints the model's config, languages and tensors.\n"
    "  heed quantize --model FILE --out FILE\n"
    "      Writes a copy whose weight matrices are int8 with per-row scales.\n";

struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// --name value pairs after the command.
std::map<std::string, std::string> ParseFlags(int argc, char** argv) {
  static const char* kKnown[] = {"--model",
                                 "--to",
                                 "--beam",
                                 "--nbest",
                                 "--length-penalty",
                                 "--max-batch",
                                 "--max-input-bytes",
                                 "--attention-json",
                                 "--out",
                                 "--threads",
                                 "--no-repeat-ngram-size",
                                 "--repetition-penalty",
                                 "--prefix",
                                 "--logit-lens",
                                 "--contributions"};
  std::map<std::string, std::string> flags;
  for (int i = 2; i < argc; ++i) {
    const std::string name = argv[i];
    bool known = false;
    for (const char* k : kKnown) known = known || name == k;
    if (!known) throw UsageError("unknown option '" + name + "'");
    if (i + 1 >= argc) throw UsageError("option '" + name + "' needs a value");
    flags[name] = argv[++i];
  }
  return flags;
}

size_t ToSize(const std::string& name, const std::string& value) {
  char* end = nullptr;
  const unsigned long long v = std::strtoull(value.c_str(), &end, 10);
  if (value.empty() || *end != '\0' || value[0] == '-' || v > 1000000) {
    throw UsageError("option '" + name + "' needs a count, not '" + value +
                     "'");
  }
  return static_cast<size_t>(v);
}

float ToFloat(const std::string& name, const std::string& value) {
  char* end = nullptr;
  const float v = std::strtof(value.c_str(), &end);
  if (value.empty() || *end != '\0') {
    throw UsageError("option '" + name + "' needs a number, not '" + value +
                     "'");
  }
  return v;
}

// [layer][head][row][col] nested arrays from a flat (L, H, R, C) tensor.
nlohmann::json Nested(const std::vector<float>& v, size_t layers, size_t heads,
                      size_t rows, size_t cols) {
  nlohmann::json out = nlohmann::json::array();
  for (size_t l = 0; l < layers; ++l) {
    nlohmann::json layer = nlohmann::json::array();
    for (size_t h = 0; h < heads; ++h) {
      nlohmann::json head = nlohmann::json::array();
      for (size_t r = 0; r < rows; ++r) {
        const float* row = v.data() + ((l * heads + h) * rows + r) * cols;
        head.push_back(std::vector<float>(row, row + cols));
      }
      layer.push_back(std::move(head));
    }
    out.push_back(std::move(layer));
  }
  return out;
}

// {"top": [layer][step][k] {piece, probability}, "tokenProbabilities":
// [layer][step]} (docs/attention.md).
nlohmann::json LensJson(const heed::LogitLens& lens) {
  nlohmann::json top = nlohmann::json::array();
  nlohmann::json probs = nlohmann::json::array();
  for (size_t l = 0; l < lens.layers; ++l) {
    nlohmann::json steps = nlohmann::json::array();
    for (size_t i = 0; i < lens.steps; ++i) {
      nlohmann::json best = nlohmann::json::array();
      for (size_t j = 0; j < lens.k; ++j) {
        const heed::Alternative& a =
            lens.top[(l * lens.steps + i) * lens.k + j];
        best.push_back({{"piece", a.piece}, {"probability", a.probability}});
      }
      steps.push_back(std::move(best));
    }
    top.push_back(std::move(steps));
    probs.push_back(std::vector<float>(
        lens.token_probs.begin() + static_cast<std::ptrdiff_t>(l * lens.steps),
        lens.token_probs.begin() +
            static_cast<std::ptrdiff_t>((l + 1) * lens.steps)));
  }
  return {{"top", std::move(top)}, {"tokenProbabilities", std::move(probs)}};
}

nlohmann::json AttentionJson(const heed::Result& r) {
  nlohmann::json sentences = nlohmann::json::array();
  for (const heed::SentenceResult& s : r.sentences) {
    const heed::Attention& a = s.attention;
    // The schema of docs/attention.md, shared with the JS result and the
    // page's export.
    nlohmann::json maps = {
        {"encoder",
         Nested(a.encoder, a.encoder_layers, a.heads, a.source, a.source)},
        {"decoder",
         Nested(a.decoder, a.decoder_layers, a.heads, a.target, a.target)},
        {"cross",
         Nested(a.cross, a.decoder_layers, a.heads, a.target, a.source)},
        // (layers, S, S): nested as one "layer" of encoder_layers "heads"
        {"rollout",
         Nested(a.rollout, 1, a.encoder_layers, a.source, a.source)[0]}};
    if (!a.encoder_contributions.empty()) {
      maps["contributions"] = {
          {"encoder", Nested(a.encoder_contributions, a.encoder_layers, a.heads,
                             a.source, a.source)},
          {"cross", Nested(a.cross_contributions, a.decoder_layers, a.heads,
                           a.target, a.source)},
          // (layers, T, 4): nested as one "layer" of decoder_layers "heads"
          {"sublayerNorms",
           Nested(a.sublayer_norms, 1, a.decoder_layers, a.target, 4)[0]}};
    }
    sentences.push_back({{"source", s.source},
                         {"sourcePieces", s.source_pieces},
                         {"targetPieces", s.best.pieces},
                         {"text", s.best.text},
                         {"score", s.best.score},
                         {"logProb", s.best.log_prob},
                         {"tokenProbabilities", s.best.token_probs},
                         {"entropies", s.best.entropies},
                         {"attention", std::move(maps)}});
    if (s.lens.k > 0) sentences.back()["logitLens"] = LensJson(s.lens);
  }
  return {{"text", r.text}, {"sentences", sentences}};
}

// Flushes `out` and throws unless everything written to it so far arrived
// (a full disk, a closed stdout).
void CheckWritten(std::ostream& out, const std::string& what) {
  out.flush();
  if (!out) throw heed::Error("cannot write " + what);
}

// A line's n-best list, Moses style: hypothesis k of a paragraph joins its
// sentences' k-th hypotheses (a sentence with fewer repeats its last) with
// a space, and scores their sum. Up to `nbest` lines; an empty line has one
// empty hypothesis scoring 0.
void WriteNBest(size_t index, const heed::Result& r, size_t nbest) {
  size_t count = r.sentences.empty() ? 1 : 0;
  for (const heed::SentenceResult& s : r.sentences) {
    count = std::max(count, std::min(nbest, s.nbest.size()));
  }
  for (size_t k = 0; k < count; ++k) {
    std::string text;
    float score = 0.0f;
    for (const heed::SentenceResult& s : r.sentences) {
      const heed::Translation& t = s.nbest[std::min(k, s.nbest.size() - 1)];
      text += (text.empty() ? "" : " ") + t.text;
      score += t.score;
    }
    std::cout << index << " ||| " << text << " ||| " << score << "\n";
  }
}

// Set by SIGINT: a signal handler can reach only a lock-free static.
std::atomic<bool>& Interrupted() {
  static std::atomic<bool> interrupted{false};
  return interrupted;
}

extern "C" void OnInterrupt(int) {
  Interrupted().store(true);
  std::signal(SIGINT, SIG_DFL);  // a second Ctrl-C ends at once
}

// SIGINT stops translate cleanly: the decoder stops between steps, what
// is done stays written and the attention JSON is closed. Without
// SA_RESTART, a read waiting on stdin returns, so input ends there too.
void CatchInterrupt() {
  static_assert(std::atomic<bool>::is_always_lock_free);
  struct sigaction action = {};
  action.sa_handler = OnInterrupt;
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, nullptr);
}

// Translates lines[i] for every i. A line the engine refuses (invalid
// UTF-8, ...) is reported on stderr with its input line number, sets
// *failed and is left out (nullopt); the other lines are translated.
std::vector<std::optional<heed::Result>> TranslateLines(
    const heed::Translator& translator, const std::vector<std::string>& lines,
    size_t first_index, const heed::TranslateOptions& options, bool* failed) {
  std::vector<std::optional<heed::Result>> out(lines.size());
  std::vector<size_t> todo(lines.size());
  for (size_t i = 0; i < todo.size(); ++i) todo[i] = i;
  for (;;) {
    std::vector<std::string> texts;
    for (size_t i : todo) texts.push_back(lines[i]);
    try {
      std::vector<heed::Result> results = translator.Translate(texts, options);
      for (size_t k = 0; k < todo.size(); ++k) {
        out[todo[k]] = std::move(results[k]);
      }
      return out;
    } catch (const heed::TextError& e) {
      const size_t bad = todo.at(e.text());
      std::cerr << "heed: line " << first_index + bad + 1 << " " << e.reason()
                << "; its output line is left empty\n";
      *failed = true;
      todo.erase(todo.begin() + static_cast<std::ptrdiff_t>(e.text()));
    }
  }
}

// Reads stdin's lines and hands them to translate in blocks: as many lines
// as are already available (at most kBlock), so batching pays on a file
// and a line-by-line co-process gets each answer at once.
void ForEachBlock(
    const std::function<void(const std::vector<std::string>&)>& translate) {
  constexpr size_t kBlock = 256;
  std::vector<std::string> lines;
  std::string line;
  while (std::getline(std::cin, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    lines.push_back(line);
    if (lines.size() == kBlock || std::cin.rdbuf()->in_avail() <= 0) {
      translate(lines);
      lines.clear();
    }
  }
  if (!lines.empty()) translate(lines);
}

// The translate command's options from its flags (unset flags keep the
// library's defaults).
heed::TranslateOptions ReadOptions(
    const std::map<std::string, std::string>& flags) {
  heed::TranslateOptions options;
  auto set_size = [&flags](const char* name, size_t* field) {
    auto it = flags.find(name);
    if (it != flags.end()) *field = ToSize(name, it->second);
  };
  auto set_float = [&flags](const char* name, float* field) {
    auto it = flags.find(name);
    if (it != flags.end()) *field = ToFloat(name, it->second);
  };
  if (flags.count("--to") != 0) options.to = flags.at("--to");
  if (flags.count("--prefix") != 0)
    options.target_prefix = flags.at("--prefix");
  if (flags.count("--attention-json") != 0 &&
      flags.at("--attention-json").empty()) {
    throw UsageError("option '--attention-json' needs a file name");
  }
  set_size("--beam", &options.beam_size);
  set_size("--nbest", &options.nbest);
  set_float("--length-penalty", &options.length_penalty);
  set_size("--no-repeat-ngram-size", &options.no_repeat_ngram_size);
  set_size("--logit-lens", &options.logit_lens);
  size_t contributions = 0;
  set_size("--contributions", &contributions);
  if (contributions > 1) {
    throw UsageError("option '--contributions' is 0 or 1");
  }
  options.contributions = contributions == 1;
  if (options.contributions && flags.count("--attention-json") == 0) {
    throw UsageError("--contributions writes into --attention-json: give both");
  }
  if (options.logit_lens > 0 && flags.count("--attention-json") == 0) {
    throw UsageError("--logit-lens writes into --attention-json: give both");
  }
  set_float("--repetition-penalty", &options.repetition_penalty);
  set_size("--threads", &options.threads);
  set_size("--max-batch", &options.max_batch);
  set_size("--max-input-bytes", &options.max_input_bytes);
  try {  // before the model loads: a bad value is a usage error
    heed::Translator::CheckOptions(options);
  } catch (const heed::Error& e) {
    throw UsageError(e.what());
  }
  return options;
}

int Translate(const std::map<std::string, std::string>& flags) {
  heed::TranslateOptions options = ReadOptions(flags);
  auto get = [&flags](const char* name) {
    auto it = flags.find(name);
    return it == flags.end() ? std::string() : it->second;
  };
  const std::string attention_path = get("--attention-json");
  options.attention = !attention_path.empty();
  options.token_confidence = options.attention;

  options.cancelled = [] { return Interrupted().load(); };
  CatchInterrupt();
  const heed::Translator translator =
      heed::Translator::FromFile(get("--model"));
  if (options.to.empty() && translator.languages().size() == 1) {
    options.to = translator.languages()[0];
  }
  std::ofstream attention_file;
  if (options.attention) {
    attention_file.open(attention_path);
    if (!attention_file) {
      throw heed::Error("cannot write '" + attention_path + "'");
    }
    attention_file << "[\n";
  }
  bool failed = false;
  size_t index = 0;
  bool first_json = true;
  auto flush = [&](const std::vector<std::string>& lines) {
    const auto results =
        TranslateLines(translator, lines, index, options, &failed);
    for (const std::optional<heed::Result>& r : results) {
      if (options.nbest > 1) {
        if (r) WriteNBest(index, *r, options.nbest);
      } else {
        std::cout << (r ? r->text : "") << "\n";
      }
      if (options.attention) {
        attention_file << (first_json ? "" : ",\n")
                       << (r ? AttentionJson(*r).dump() : "null");
        first_json = false;
      }
      ++index;
    }
    std::cout.flush();
    CheckWritten(std::cout, "the translation to standard output");
    if (options.attention) {
      attention_file.flush();
      CheckWritten(attention_file, "'" + attention_path + "'");
    }
  };
  int status = failed ? 1 : 0;
  try {
    ForEachBlock(flush);
    status = failed ? 1 : 0;
  } catch (const heed::Cancelled&) {
    std::cerr << "heed: interrupted; " << index
              << " lines were translated and written\n";
    status = 130;  // as a shell reports SIGINT
  }
  if (options.attention) {  // a complete JSON document, even when stopped
    attention_file << "\n]\n";
    CheckWritten(attention_file, "'" + attention_path + "'");
  }
  return status;
}

int Info(const std::map<std::string, std::string>& flags) {
  const heed::Translator translator =
      heed::Translator::FromFile(flags.at("--model"));
  const heed::ModelFile& file = translator.file();
  std::cout << "file: " << file.source() << " (" << file.size() << " bytes)\n";
  std::cout << "parameters: " << translator.parameters() << "\n";
  std::cout << "languages:";
  for (const std::string& lang : translator.languages())
    std::cout << " " << lang;
  std::cout
      << "\nconfig: "
      << nlohmann::json::parse(heed::ConfigToJson(translator.config())).dump(2)
      << "\ntensors:\n";
  for (const heed::TensorInfo& t : file.tensors()) {
    std::string shape;
    for (size_t s : t.shape)
      shape += (shape.empty() ? "" : ", ") + std::to_string(s);
    std::cout << "  " << t.name << "  " << heed::DTypeName(t.dtype) << "  ["
              << shape << "]  " << t.bytes << " bytes\n";
  }
  CheckWritten(std::cout, "to standard output");
  return 0;
}

int Quantize(const std::map<std::string, std::string>& flags) {
  if (flags.count("--out") == 0) throw UsageError("--out is required");
  // Loading first checks that the input is a complete, valid model.
  const heed::Translator translator =
      heed::Translator::FromFile(flags.at("--model"));
  const std::vector<uint8_t> bytes = heed::QuantizeModel(translator.file());
  heed::Translator::FromBytes(bytes);  // the result loads
  const std::string& path = flags.at("--out");
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()),
            static_cast<std::streamsize>(bytes.size()));
  out.close();
  if (!out) throw std::runtime_error("cannot write '" + path + "'");
  std::cout << "wrote " << path << " (" << bytes.size() << " bytes)\n";
  CheckWritten(std::cout, "to standard output");
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::ios::sync_with_stdio(false);
  try {
    if (argc < 2) throw UsageError("no command");
    const std::string command = argv[1];
    if (command == "--help" || command == "-h" || command == "help") {
      std::cout << kUsage;
      return 0;
    }
    const auto flags = ParseFlags(argc, argv);
    if (flags.count("--model") == 0) throw UsageError("--model is required");
    if (command == "translate") return Translate(flags);
    if (command == "info") return Info(flags);
    if (command == "quantize") return Quantize(flags);
    throw UsageError("unknown command '" + command + "'");
  } catch (const UsageError& e) {
    std::cerr << "heed: " << e.what() << "\n" << kUsage;
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "heed: " << e.what() << "\n";
    return 1;
  }
}
