// The command line's flags: --name value pairs, parsed strictly and turned
// into translate options before any model is loaded.
#ifndef HEED_CLI_FLAGS_H_
#define HEED_CLI_FLAGS_H_

#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/translator.h"

namespace heed::cli {

// A mistake in the command line itself (exit status 2).
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

using Flags = std::map<std::string, std::string>;

// The --name value pairs of args (what follows the command); throws
// UsageError for an unknown flag or one without a value.
Flags ParseFlags(const std::vector<std::string>& args);

// The translate options' flags, ranges, defaults and meanings, for --help.
std::string OptionHelp();

// The translate command's options from its flags (unset flags keep the
// library's defaults), checked; throws UsageError.
TranslateOptions ReadOptions(const Flags& flags);

}  // namespace heed::cli

#endif  // HEED_CLI_FLAGS_H_
