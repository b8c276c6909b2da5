// The one table of translate options that front ends set by name: each
// option's names in C++, JavaScript and on the command line, its kind,
// range and the TranslateOptions field it fills. The range checks
// (CheckOptionRanges), the CLI's flags and help, the Embind reader and,
// through a test, wasm/options.js and heed.d.ts all follow it. Options with
// structure (heads, prefix pieces, a cancel callback) are read by each
// front end itself.
#ifndef HEED_CORE_OPTION_TABLE_H_
#define HEED_CORE_OPTION_TABLE_H_

#include <cstddef>
#include <string>
#include <vector>

#include "core/options.h"

namespace heed {

enum class OptionKind {
  kCount,   // a whole number (size_t field)
  kReal,    // a finite number (float field)
  kSwitch,  // on or off (bool field; the CLI takes 0 or 1)
  kText,    // a string (std::string field)
};

struct OptionSpec {
  const char* field;  // the TranslateOptions member, "beam_size"
  const char* js;     // the JavaScript name, "beam"; nullptr: not in JS
  const char* flag;   // the CLI flag, "--beam"; nullptr: not on the CLI
  OptionKind kind;
  double min = 0, max = 0;  // a count's or real's range, inclusive...
  bool above_min = false;   // ...but for min when true: (min, max]
  const char* range = "";   // the range as messages print it, "[1, 64]"
  const char* help = "";    // one line for --help and the docs
  // The field it fills; the one that matches `kind` is set.
  size_t TranslateOptions::*count = nullptr;
  float TranslateOptions::*real = nullptr;
  bool TranslateOptions::*on = nullptr;
  std::string TranslateOptions::*text = nullptr;
};

// Every named option, in the order --help lists them.
const std::vector<OptionSpec>& OptionTable();

// The option with this JavaScript name or CLI flag, or nullptr.
const OptionSpec* FindOptionByJs(const std::string& name);
const OptionSpec* FindOptionByFlag(const std::string& flag);

// The option's value in `options` as a number (a switch is 0 or 1; text
// has none: 0).
double OptionValue(const OptionSpec& spec, const TranslateOptions& options);

// Sets a count or real from a number, a switch from 0 or 1; throws
// heed::Error naming the option when the number is outside its range or
// not whole where a count is needed.
void SetOptionNumber(const OptionSpec& spec, double value,
                     TranslateOptions* options);

// A number as messages and --help print it: "64", "0.5", "1073741824".
std::string FormatOptionNumber(double v);

// Throws heed::Error naming the first option outside its range.
void CheckOptionRanges(const TranslateOptions& options);

}  // namespace heed

#endif  // HEED_CORE_OPTION_TABLE_H_
