#include "cli/flags.h"

#include <algorithm>
#include <cstdlib>

#include "core/error.h"

namespace heed::cli {
namespace {

// Digits only: strtoull alone would take "+4", " 4" and "-1" (wrapped).
size_t ToSize(const std::string& name, const std::string& value) {
  const bool digits = !value.empty() && value.size() <= 10 &&
                      std::all_of(value.begin(), value.end(),
                                  [](char c) { return c >= '0' && c <= '9'; });
  const unsigned long long v =
      digits ? std::strtoull(value.c_str(), nullptr, 10) : 0;
  if (!digits || v > (1ULL << 30)) {
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

// "KIND:LAYER:HEAD", KIND one of encoder, decoder, cross.
HeadRef ToHead(const std::string& name, const std::string& value) {
  const size_t a = value.find(':');
  const size_t b = a == std::string::npos ? a : value.find(':', a + 1);
  const std::string kind = value.substr(0, a);
  int k = -1;
  for (int i = 0; i < 3; ++i) {
    if (kind == KindName(static_cast<AttentionKind>(i))) k = i;
  }
  if (k < 0 || b == std::string::npos) {
    throw UsageError("option '" + name +
                     "' needs KIND:LAYER:HEAD (KIND encoder, decoder or "
                     "cross), not '" +
                     value + "'");
  }
  return {static_cast<AttentionKind>(k),
          ToSize(name, value.substr(a + 1, b - a - 1)),
          ToSize(name, value.substr(b + 1))};
}

}  // namespace

Flags ParseFlags(const std::vector<std::string>& args) {
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
                                 "--contributions",
                                 "--query-key",
                                 "--simd"};
  Flags flags;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& name = args[i];
    bool known = false;
    for (const char* k : kKnown) known = known || name == k;
    if (!known) throw UsageError("unknown option '" + name + "'");
    if (i + 1 >= args.size()) {
      throw UsageError("option '" + name + "' needs a value");
    }
    flags[name] = args[++i];
  }
  return flags;
}

TranslateOptions ReadOptions(const Flags& flags) {
  TranslateOptions options;
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
  if (flags.count("--query-key") != 0) {
    if (flags.count("--attention-json") == 0) {
      throw UsageError("--query-key writes into --attention-json: give both");
    }
    options.query_key = ToHead("--query-key", flags.at("--query-key"));
  }
  if (options.logit_lens > 0 && flags.count("--attention-json") == 0) {
    throw UsageError("--logit-lens writes into --attention-json: give both");
  }
  set_float("--repetition-penalty", &options.repetition_penalty);
  set_size("--threads", &options.threads);
  set_size("--max-batch", &options.max_batch);
  set_size("--max-input-bytes", &options.max_input_bytes);
  try {  // before the model loads: a bad value is a usage error
    Translator::CheckOptions(options);
  } catch (const Error& e) {
    throw UsageError(e.what());
  }
  return options;
}

}  // namespace heed::cli
