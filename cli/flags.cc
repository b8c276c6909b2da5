#include "cli/flags.h"

#include <algorithm>
#include <cstdlib>
#include <sstream>

#include "core/error.h"
#include "core/option_table.h"

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

// "encoder:0:3,cross:1:2" → the heads to switch off.
std::vector<HeadRef> ToHeads(const std::string& name,
                             const std::string& value) {
  std::vector<HeadRef> out;
  std::istringstream items(value);
  std::string item;
  while (std::getline(items, item, ',')) out.push_back(ToHead(name, item));
  if (out.empty()) throw UsageError("option '" + name + "' names no head");
  return out;
}

// "cross:1,encoder-ffn:0" → the sublayers to switch off.
std::vector<SublayerRef> ToSublayers(const std::string& name,
                                     const std::string& value) {
  std::vector<SublayerRef> out;
  std::istringstream items(value);
  std::string item;
  while (std::getline(items, item, ',')) {
    const size_t colon = item.find(':');
    int k = -1;
    for (int i = 0; i < kSublayerKinds; ++i) {
      if (item.substr(0, colon) == SublayerName(static_cast<SublayerKind>(i))) {
        k = i;
      }
    }
    if (k < 0 || colon == std::string::npos) {
      throw UsageError("option '" + name +
                       "' needs SUBLAYER:LAYER[,...] (SUBLAYER encoder-self, "
                       "encoder-ffn, decoder-self, cross or decoder-ffn), "
                       "not '" +
                       item + "'");
    }
    out.push_back(
        {static_cast<SublayerKind>(k), ToSize(name, item.substr(colon + 1))});
  }
  if (out.empty()) throw UsageError("option '" + name + "' names no sublayer");
  return out;
}

}  // namespace

// Flags of the CLI's own, beside the translate options of the table.
constexpr const char* kCliFlags[] = {
    "--model",      "--attention-json", "--out", "--query-key",
    "--switch-off", "--mask-heads",     "--simd"};

Flags ParseFlags(const std::vector<std::string>& args) {
  Flags flags;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& name = args[i];
    bool known = FindOptionByFlag(name) != nullptr;
    for (const char* k : kCliFlags) known = known || name == k;
    if (!known) throw UsageError("unknown option '" + name + "'");
    if (i + 1 >= args.size()) {
      throw UsageError("option '" + name + "' needs a value");
    }
    flags[name] = args[++i];
  }
  return flags;
}

std::string OptionHelp() {
  const TranslateOptions defaults;
  std::ostringstream out;
  for (const OptionSpec& s : OptionTable()) {
    if (s.flag == nullptr) continue;
    std::string line = std::string("  ") + s.flag;
    if (s.kind == OptionKind::kText) {
      line += " TEXT";
    } else {
      line += std::string(" ") + s.range + ", default " +
              FormatOptionNumber(OptionValue(s, defaults));
    }
    out << line << "\n      " << s.help << "\n";
  }
  return out.str();
}

namespace {

// One table option from its flag's text.
void SetFromFlag(const OptionSpec& s, const std::string& value,
                 TranslateOptions* options) {
  if (s.kind == OptionKind::kText) {
    options->*s.text = value;
    return;
  }
  const double v = s.kind == OptionKind::kReal
                       ? ToFloat(s.flag, value)
                       : static_cast<double>(ToSize(s.flag, value));
  try {
    SetOptionNumber(s, v, options);
  } catch (const Error& e) {
    throw UsageError(std::string("option '") + s.flag + "': " + e.what());
  }
}

// The explanations have nowhere to go but the attention JSON.
void NeedAttentionJson(const Flags& flags, const char* flag, bool used) {
  if (used && flags.count("--attention-json") == 0) {
    throw UsageError(std::string(flag) +
                     " writes into --attention-json: give both");
  }
}

}  // namespace

TranslateOptions ReadOptions(const Flags& flags) {
  TranslateOptions options;
  for (const auto& [name, value] : flags) {
    if (const OptionSpec* s = FindOptionByFlag(name)) {
      SetFromFlag(*s, value, &options);
    }
  }
  if (flags.count("--attention-json") != 0 &&
      flags.at("--attention-json").empty()) {
    throw UsageError("option '--attention-json' needs a file name");
  }
  if (flags.count("--query-key") != 0) {
    options.query_key = ToHead("--query-key", flags.at("--query-key"));
  }
  if (flags.count("--switch-off") != 0) {
    options.switched_off =
        ToSublayers("--switch-off", flags.at("--switch-off"));
  }
  if (flags.count("--mask-heads") != 0) {
    options.masked_heads = ToHeads("--mask-heads", flags.at("--mask-heads"));
  }
  NeedAttentionJson(flags, "--contributions", options.contributions);
  NeedAttentionJson(flags, "--alti", options.alti);
  NeedAttentionJson(flags, "--query-key", options.query_key.has_value());
  NeedAttentionJson(flags, "--logit-lens", options.logit_lens > 0);
  NeedAttentionJson(flags, "--erasure", options.erasure != "off");
  if (options.alignments && options.nbest > 1) {
    throw UsageError(
        "--alignments are of the best translation: not with --nbest");
  }
  try {  // before the model loads: a bad value is a usage error
    Translator::CheckOptions(options);
  } catch (const Error& e) {
    throw UsageError(e.what());
  }
  return options;
}

}  // namespace heed::cli
