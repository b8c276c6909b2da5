#include "core/option_table.h"

#include <cmath>
#include <cstdio>

#include "core/error.h"

namespace heed {
namespace {

using O = TranslateOptions;

OptionSpec Count(const char* field, const char* js, const char* flag,
                 double min, double max, const char* range, const char* help,
                 size_t O::*member) {
  OptionSpec s{field, js,    flag, OptionKind::kCount, min, max,
               false, range, help};
  s.count = member;
  return s;
}

OptionSpec Real(const char* field, const char* js, const char* flag, double min,
                double max, bool above_min, const char* range, const char* help,
                float O::*member) {
  OptionSpec s{field,     js,    flag, OptionKind::kReal, min, max,
               above_min, range, help};
  s.real = member;
  return s;
}

OptionSpec Switch(const char* field, const char* js, const char* flag,
                  const char* help, bool O::*member) {
  OptionSpec s{field, js,       flag, OptionKind::kSwitch, 0, 1,
               false, "{0, 1}", help};
  s.on = member;
  return s;
}

OptionSpec Text(const char* field, const char* js, const char* flag,
                const char* help, std::string O::*member) {
  OptionSpec s{field, js, flag, OptionKind::kText, 0, 0, false, "", help};
  s.text = member;
  return s;
}

std::vector<OptionSpec> MakeTable() {
  constexpr double kGiB = 1 << 30;
  return {
      Text("to", "to", "--to", "target language code (de, en)", &O::to),
      Count("beam_size", "beam", "--beam", 1, 64, "[1, 64]",
            "beam size; 1 is greedy search", &O::beam_size),
      Count("nbest", "nbest", "--nbest", 1, 64, "[1, 64]",
            "hypotheses returned, at most the beam size", &O::nbest),
      Real("length_penalty", "lengthPenalty", "--length-penalty", 0, 10, false,
           "[0, 10]", "GNMT alpha: score = log P / ((5 + length) / 6)^alpha",
           &O::length_penalty),
      Count("no_repeat_ngram_size", "noRepeatNgramSize",
            "--no-repeat-ngram-size", 0, 1000, "[0, 1000]",
            "no n-gram twice, no token three times in a row; 0: off",
            &O::no_repeat_ngram_size),
      Real("repetition_penalty", "repetitionPenalty", "--repetition-penalty", 0,
           10, true, "(0, 10]",
           "log-probability of tokens already produced times this; 1: off",
           &O::repetition_penalty),
      Text("target_prefix", "prefix", "--prefix",
           "text every translation must start with (one sentence per text)",
           &O::target_prefix),
      Text("positions", "positions", "--positions",
           "on, off (no positional encoding) or shuffled (the source's)",
           &O::positions),
      Text("erasure", "erasure", "--erasure",
           "off, remove or unk: each source piece's effect on each target "
           "piece when it is taken out or replaced by <unk>",
           &O::erasure),
      Switch("html", "html", "--html",
             "the text is HTML: tags kept, inline markup on the aligned words",
             &O::html),
      Switch("copy_unknown", "copyUnknown", "--copy-unknown",
             "write the source's text for the unknown piece (a character "
             "the vocabulary lacks) where a translation has it; 0: ⁇",
             &O::copy_unknown),
      Switch("alignments", "alignments", "--alignments",
             "word alignments (source-target word pairs) from cross-attention",
             &O::alignments),
      Switch("attention", "attention", nullptr, "return every attention map",
             &O::attention),
      Switch("contributions", "contributions", "--contributions",
             "and the norm-based contributions", &O::contributions),
      Switch("alti", "alti", "--alti",
             "and ALTI+: how much each decoding step draws on each source "
             "piece and each piece before it, through every layer",
             &O::alti),
      Switch("token_confidence", "confidence", nullptr,
             "each token's probability and its step's entropy",
             &O::token_confidence),
      Count("logit_lens", "logitLens", "--logit-lens", 0, 100, "[0, 100]",
            "the logit lens's top k per decoder layer and step; 0: off",
            &O::logit_lens),
      Count("max_sentence_tokens", "maxSentenceTokens", nullptr, 3, 4096,
            "[3, 4096]", "longer sentences are translated in pieces",
            &O::max_sentence_tokens),
      Count("max_batch", "maxBatch", "--max-batch", 1, 1024, "[1, 1024]",
            "sentences decoded together", &O::max_batch),
      Count("max_input_bytes", "maxInputBytes", "--max-input-bytes", 1, kGiB,
            "[1, 2^30]", "a longer text is refused", &O::max_input_bytes),
      Count("max_attention_bytes", "maxAttentionBytes", "--max-attention-bytes",
            0, 4 * kGiB - 1, "[0, 2^32 - 1]",
            "the most the attention maps of one text may take",
            &O::max_attention_bytes),
      Count("threads", nullptr, "--threads", 1, 256, "[1, 256]",
            "batches decoded at once, one per thread", &O::threads),
      Real("max_length_ratio", nullptr, nullptr, 0, 100, false, "[0, 100]",
           "at most ratio x source length + extra target tokens",
           &O::max_length_ratio),
      Count("max_length_extra", nullptr, nullptr, 0, 100000, "[0, 100000]",
            "see max_length_ratio", &O::max_length_extra),
  };
}

}  // namespace

std::string FormatOptionNumber(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

namespace {

bool InRange(const OptionSpec& s, double v) {
  return std::isfinite(v) && (s.above_min ? v > s.min : v >= s.min) &&
         v <= s.max;
}

// "max input bytes must be in [1, 2^30], not 0 (max_input_bytes)".
[[noreturn]] void OutOfRange(const OptionSpec& s, const std::string& value) {
  std::string name = s.field;
  for (char& c : name) c = c == '_' ? ' ' : c;
  throw Error(name + " must be in " + s.range + ", not " + value + " (" +
              s.field + ")");
}

}  // namespace

const std::vector<OptionSpec>& OptionTable() {
  static const std::vector<OptionSpec> table = MakeTable();
  return table;
}

const OptionSpec* FindOptionByJs(const std::string& name) {
  for (const OptionSpec& s : OptionTable()) {
    if (s.js != nullptr && name == s.js) return &s;
  }
  return nullptr;
}

const OptionSpec* FindOptionByFlag(const std::string& flag) {
  for (const OptionSpec& s : OptionTable()) {
    if (s.flag != nullptr && flag == s.flag) return &s;
  }
  return nullptr;
}

double OptionValue(const OptionSpec& s, const TranslateOptions& o) {
  switch (s.kind) {
    case OptionKind::kCount:
      return static_cast<double>(o.*s.count);
    case OptionKind::kReal:
      return o.*s.real;
    case OptionKind::kSwitch:
      return (o.*s.on) ? 1 : 0;
    case OptionKind::kText:
      return 0;
  }
  return 0;
}

void SetOptionNumber(const OptionSpec& s, double v, TranslateOptions* o) {
  const bool whole = s.kind != OptionKind::kReal;
  if (s.kind == OptionKind::kText || !InRange(s, v) ||
      (whole && std::floor(v) != v)) {
    OutOfRange(s, FormatOptionNumber(v));
  }
  switch (s.kind) {
    case OptionKind::kCount:
      o->*s.count = static_cast<size_t>(v);
      break;
    case OptionKind::kReal:
      o->*s.real = static_cast<float>(v);
      break;
    case OptionKind::kSwitch:
      o->*s.on = v != 0;
      break;
    case OptionKind::kText:
      break;
  }
}

void CheckOptionRanges(const TranslateOptions& o) {
  for (const OptionSpec& s : OptionTable()) {
    if (s.kind == OptionKind::kCount || s.kind == OptionKind::kReal) {
      const double v = OptionValue(s, o);
      if (!InRange(s, v)) OutOfRange(s, FormatOptionNumber(v));
    }
  }
}

}  // namespace heed
