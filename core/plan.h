// Planning a translation request: every option checked up front (for any
// input, empty too), and the texts cut into the units the decoder sees.
#ifndef HEED_CORE_PLAN_H_
#define HEED_CORE_PLAN_H_

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "core/decode/options.h"
#include "core/explain/erasure.h"
#include "core/model/config.h"
#include "core/model/run_options.h"
#include "core/options.h"
#include "core/text/sentences.h"
#include "core/text/tokenizer.h"

namespace heed {

// One piece of work for the decoder: a sentence, or a chunk of a long one.
struct Unit {
  size_t text;     // index of the input text
  size_t segment;  // index of its sentence segment
  std::string source;
  std::vector<int> ids;  // encoder input: [tag] pieces EOS
  // The text each unknown piece of ids stands for, in order ("ø"): what a
  // translation copies where it writes an unknown piece.
  std::vector<std::string> unknowns;
};

// What a request resolves to once every option is checked.
struct Plan {
  DecodingOptions decoding;
  RunOptions run;
  int tag = -1;                // the target-language piece, or -1 without tags
  size_t room = 0;             // source pieces per unit
  size_t max_input_bytes = 0;  // per text
  ErasureMode erasure = ErasureMode::kOff;
  size_t batch = 1;  // sentences per batch: max_batch, or fewer so that a
                     // batch holds at most kMaxDecoderRows hypotheses
  // Translations write the source's text for the unknown pieces they write
  // (core/unknowns.h); source_unk is the source vocabulary's unknown piece.
  bool copy_unknown = true;
  int source_unk = -1;
};

// Hypotheses decoded at once (sentences × beam): each holds its key/value
// cache, ~0.3 MB for the shipped model, so this bounds a batch's memory.
constexpr size_t kMaxDecoderRows = 1024;

// Every text split into sentences, and the sentences into encoder inputs.
struct Work {
  std::vector<std::vector<Segment>> segments;  // per text
  std::vector<Unit> units;                     // in text, sentence order
};

// Checks every option against the model; throws heed::Error.
Plan PlanRequest(const ModelConfig& c, const Tokenizer& source,
                 const TranslateOptions& options);

// The ranges of the options that need no model; throws heed::Error.
void CheckLimits(const TranslateOptions& options);

// Throws heed::TextError for text `text` of `bytes` bytes over `limit`
// (max_input_bytes); `what` names them (" bytes", " bytes of HTML").
void CheckInputBytes(size_t text, size_t bytes, size_t limit, const char* what);

// The target tokens of options.target_prefix (text) or
// options.target_prefix_pieces; empty when neither is set. Throws
// heed::Error for a prefix the model cannot write exactly: text its
// vocabulary cannot spell, a control or language-tag piece.
std::vector<int> ForcedPrefix(const TranslateOptions& options,
                              const Tokenizer& target, const ModelConfig& c);

// SplitSentences, but a sentence the tokenizer reads as no pieces at all
// (zero-width or control characters only) is a separator, copied as it is:
// what Translate translates and what Translator::Split reports agree.
std::vector<Segment> SplitForModel(std::string_view text,
                                   const Tokenizer& source);

// Every text split into sentences, and the sentences into units of at most
// plan.room pieces; throws heed::Error on invalid UTF-8.
Work MakeUnits(const std::vector<std::string>& texts, const Plan& plan,
               const Tokenizer& source, int eos);

// With a forced prefix: throws heed::TextError for a text of more than one
// sentence, or one whose length limit the prefix passes. A text without
// a sentence (a blank line) is fine: it translates to nothing.
void CheckPrefix(const Work& work, size_t texts,
                 const DecodingOptions& options);

// Throws heed::TextError for the first text whose attention maps could
// exceed options.max_attention_bytes.
void CheckAttentionSize(const ModelConfig& c, const std::vector<Unit>& units,
                        const TranslateOptions& options);

}  // namespace heed

#endif  // HEED_CORE_PLAN_H_
