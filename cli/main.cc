// The heed command line.
//
//   heed translate --model FILE [--to LANG] [--beam N] [--nbest N]
//                  [--length-penalty A] [--max-batch N] [--threads N]
//                  [--attention-json FILE]      lines on stdin -> stdout
//   heed info --model FILE                      config and tensor table
//   heed quantize --model FILE --out FILE       int8 copy of a model
//   heed heads --model FILE [--to LANG] [--out FILE]  head roles of stdin
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

#include "cli/flags.h"
#include "cli/heads.h"
#include "core/model/model_file.h"
#include "core/model/quantize.h"
#include "core/ops/targets.h"
#include "core/result_json.h"
#include "core/translator.h"

namespace {

using heed::cli::Flags;
using heed::cli::UsageError;

constexpr const char* kUsage =
    "usage:\n"
    "  heed translate --model FILE [--to LANG] [--beam N] [...] \\\n"
    "                 [--query-key KIND:LAYER:HEAD] [--attention-json FILE]\n"
    "      Translates each line of stdin to a line of stdout. With --nbest N\n"
    "      > 1 it writes N lines per input: INDEX ||| TEXT ||| SCORE.\n"
    "      --attention-json FILE: every sentence's attention (with\n"
    "      --contributions 1, --alti 1, --logit-lens K and --query-key\n"
    "      encoder:0:3, KIND encoder, decoder or cross, what they add) as\n"
    "      JSON.\n"
    "      --switch-off cross:1,encoder-ffn:0 zeroes what those sublayers\n"
    "      add (they still run); --positions off|shuffled takes the\n"
    "      positional encoding away, or shuffles the source's positions.\n"
    "      --mask-heads encoder:0:3,cross:1:2 zeroes those heads' output.\n"
    "      --alignments 1: each line is TEXT ||| i-j ... (source word i,\n"
    "      target word j, from 0, words split at white space).\n"
    "  Every command takes --simd TARGET: dispatch to that SIMD target and\n"
    "  nothing better (AVX2 on an AVX-512 CPU, say; heed info lists them).\n"
    "  heed info --model FILE\n"
    "      Prints the model's config, languages and tensors.\n"
    "  heed quantize --model FILE --out FILE\n"
    "      Writes a copy whose weight matrices are int8 with per-row scales.\n"
    "  heed heads --model FILE [--to LANG] [--out FILE] [...]\n"
    "      Translates stdin's lines and prints what each attention head\n"
    "      habitually looks at (docs/heads.md); --out FILE: as JSON.\n";

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

// A line's word alignment as " i-j i-j ..." (source word i, target word j).
std::string Pharaoh(const std::optional<heed::Result>& r) {
  std::string out;
  if (!r) return out;
  for (const auto& [s, t] : r->alignment) {
    out += " " + std::to_string(s) + "-" + std::to_string(t);
  }
  return out;
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
    texts.reserve(todo.size());
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
// as are already available (at most `block`), so batching pays on a file
// and a line-by-line co-process gets each answer at once.
void ForEachBlock(
    size_t block,
    const std::function<void(const std::vector<std::string>&)>& translate) {
  std::vector<std::string> lines;
  std::string line;
  while (std::getline(std::cin, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    lines.push_back(line);
    if (lines.size() == block || std::cin.rdbuf()->in_avail() <= 0) {
      translate(lines);
      lines.clear();
    }
  }
  if (!lines.empty()) translate(lines);
}

int Translate(const Flags& flags) {
  heed::TranslateOptions options = heed::cli::ReadOptions(flags);
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
        std::cout << (r ? r->text : "");
        if (options.alignments) std::cout << " |||" << Pharaoh(r);
        std::cout << "\n";
      }
      if (options.attention) {
        attention_file << (first_json ? "" : ",\n");
        if (r) {
          heed::WriteResultJson(*r, attention_file);
        } else {
          attention_file << "null";
        }
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
    // With attention, one line at a time: memory holds one line's maps
    // (at most max_attention_bytes), written out before the next line.
    ForEachBlock(options.attention ? 1 : 256, flush);
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

int Info(const Flags& flags) {
  const heed::Translator translator =
      heed::Translator::FromFile(flags.at("--model"));
  const heed::ModelFile& file = translator.file();
  std::cout << "file: " << file.source() << " (" << file.size() << " bytes)\n";
  std::cout << "parameters: " << translator.parameters() << "\n";
  std::cout << "simd: " << heed::ops::SimdTarget() << " (this CPU and build:";
  for (const std::string& t : heed::ops::SimdTargets()) std::cout << " " << t;
  std::cout << ")\n";
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

int Quantize(const Flags& flags) {
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
    bool help = command == "help" || command == "--help" || command == "-h";
    for (int i = 2; i < argc; i += 2) {  // flag names, not their values
      help = help || std::string(argv[i]) == "--help" ||
             std::string(argv[i]) == "-h";
    }
    if (help) {
      std::cout << kUsage << "translate options (the engine's defaults):\n"
                << heed::cli::OptionHelp();
      return 0;
    }
    const Flags flags =
        heed::cli::ParseFlags(std::vector<std::string>(argv + 2, argv + argc));
    if (flags.count("--model") == 0) throw UsageError("--model is required");
    if (flags.count("--simd") != 0) {
      heed::ops::LimitSimdTarget(flags.at("--simd"));
    }
    if (command == "translate") return Translate(flags);
    if (command == "info") return Info(flags);
    if (command == "quantize") return Quantize(flags);
    if (command == "heads") return heed::cli::Heads(flags);
    throw UsageError("unknown command '" + command + "'");
  } catch (const UsageError& e) {
    std::cerr << "heed: " << e.what() << "\n" << kUsage;
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "heed: " << e.what() << "\n";
    return 1;
  }
}
