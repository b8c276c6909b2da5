// libFuzzer target: arbitrary command lines (arguments separated by NUL
// bytes) through the CLI's flag parsing and option checks. Every input
// either gives checked options or a UsageError; nothing else escapes.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "cli/flags.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::vector<std::string> args(1);
  for (size_t i = 0; i < size; ++i) {
    if (data[i] == 0) {
      args.emplace_back();
    } else {
      args.back().push_back(static_cast<char>(data[i]));
    }
  }
  try {
    const heed::TranslateOptions o =
        heed::cli::ReadOptions(heed::cli::ParseFlags(args));
    heed::Translator::CheckOptions(o);  // what ReadOptions let through holds
  } catch (const heed::cli::UsageError&) {
  }
  return 0;
}
