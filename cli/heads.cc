#include "cli/heads.h"

#include <cstdio>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "core/explain/head_roles.h"
#include "core/result_json.h"
#include "core/translator.h"

namespace heed::cli {
namespace {

constexpr size_t kBlock = 32;  // lines per Translate call

void PrintKind(const char* kind, const std::vector<HeadRole>& roles,
               size_t heads) {
  for (size_t k = 0; k < roles.size(); ++k) {
    const HeadRole& r = roles[k];
    char line[160];
    std::snprintf(line, sizeof line,
                  "%-7s %5zu %4zu %10.2f %8.2f %5.2f %5.2f %5.2f %8.2f %8.2f",
                  kind, k / heads, k % heads, r.confidence, r.previous, r.same,
                  r.next, r.rare, r.boundary, r.distance);
    std::cout << line << "  " << RoleName(r) << "\n";
  }
}

void PrintTable(const HeadRoles& roles, size_t sentences) {
  std::cout << "head roles over " << sentences << " sentences\n"
            << "kind    layer head confidence previous  same  next  rare "
               "boundary distance  role\n";
  PrintKind("encoder", roles.encoder, roles.heads);
  PrintKind("decoder", roles.decoder, roles.heads);
  PrintKind("cross", roles.cross, roles.heads);
}

// The roles of one block of lines, merged into *total.
void AddBlock(const Translator& translator,
              const std::vector<std::string>& lines,
              const TranslateOptions& options, HeadRoles* total,
              size_t* sentences) {
  for (const Result& r : translator.Translate(lines, options)) {
    for (const SentenceResult& s : r.sentences) {
      MergeHeadRoles(s.attention.roles, total);
      ++*sentences;
    }
  }
}

}  // namespace

int Heads(const Flags& flags) {
  TranslateOptions options = ReadOptions(flags);
  options.attention = true;
  const Translator translator = Translator::FromFile(flags.at("--model"));
  if (options.to.empty() && translator.languages().size() == 1) {
    options.to = translator.languages()[0];
  }
  HeadRoles total;
  size_t sentences = 0;
  std::vector<std::string> lines;
  std::string line;
  while (std::getline(std::cin, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    lines.push_back(line);
    if (lines.size() == kBlock) {
      AddBlock(translator, lines, options, &total, &sentences);
      lines.clear();
    }
  }
  if (!lines.empty()) AddBlock(translator, lines, options, &total, &sentences);
  if (sentences == 0) throw Error("heed heads: no sentences on stdin");
  PrintTable(total, sentences);
  auto out = flags.find("--out");
  if (out != flags.end()) {
    std::ofstream file(out->second);
    file << "{\"sentences\":" << sentences << ",\"heads\":" << total.heads
         << ",\"roles\":";
    WriteHeadRolesJson(total, file);
    file << "}\n";
    file.close();
    if (!file) throw Error("cannot write '" + out->second + "'");
  }
  std::cout.flush();
  return std::cout ? 0 : 1;
}

}  // namespace heed::cli
