// What each explanation costs, measured against the plain translation in
// the same run (a benchmark, not a test): the same lines translated with
// every option off, then with attention, token confidence, the logit lens
// contributions, ALTI+, one head's query/key vectors, erasure and a
// contrastive explanation on, in
// interleaved rounds;
// prints each configuration's median time and its ratio to the plain one.
//   explain_bench [MODEL] [ROUNDS] [SIMD]
// (default: the shipped int8 model, 5 rounds, the best SIMD target; SIMD as
// the CLI's --simd, e.g. AVX2 on an AVX-512 machine).
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <iostream>
#include <string>
#include <utility>
#include <vector>

#include "core/ops/targets.h"
#include "core/translator.h"

namespace {

using Clock = std::chrono::steady_clock;

const char* const kLines[] = {
    "A dog runs through the park with a ball.",
    "Two men are playing football on the beach.",
    "A little girl in a red dress is climbing the stairs.",
    "I would like to book a table for two people tonight.",
    "My grandmother grew up in a small village near the mountains.",
    "The European Central Bank raised interest rates again on Thursday.",
    "Where is the train station?",
    "A woman is reading a book in the garden while her children play.",
};

struct Config {
  const char* name;
  void (*set)(heed::TranslateOptions&);
};

const Config kConfigs[] = {
    {"plain (every explanation off)", [](heed::TranslateOptions&) {}},
    {"attention", [](heed::TranslateOptions& o) { o.attention = true; }},
    {"token confidence",
     [](heed::TranslateOptions& o) { o.token_confidence = true; }},
    {"logit lens, top 5", [](heed::TranslateOptions& o) { o.logit_lens = 5; }},
    {"attention + contributions",
     [](heed::TranslateOptions& o) {
       o.attention = true;
       o.contributions = true;
     }},
    {"attention + ALTI+",
     [](heed::TranslateOptions& o) {
       o.attention = true;
       o.alti = true;
     }},
    {"attention + contributions + ALTI+",
     [](heed::TranslateOptions& o) {
       o.attention = true;
       o.contributions = true;
       o.alti = true;
     }},
    {"attention + query/key of one head",
     [](heed::TranslateOptions& o) {
       o.attention = true;
       o.query_key = heed::HeadRef{heed::AttentionKind::kCross, 1, 3};
     }},
    {"erasure, pieces removed",
     [](heed::TranslateOptions& o) { o.erasure = "remove"; }},
    {"erasure, pieces replaced by <unk>",
     [](heed::TranslateOptions& o) { o.erasure = "unk"; }},
};

double Seconds(const heed::Translator& t, const heed::TranslateOptions& o) {
  const auto t0 = Clock::now();
  for (const char* line : kLines) t.Translate(line, o);
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// The page's "why not?" at the middle step of a line: two erasure requests
// forced through the prefix, one ending in the chosen piece and one in
// another candidate of that step (Yin & Neubig 2022).
struct Contrast {
  const char* line;
  std::vector<std::string> chosen, other;  // the forced prefixes
};

std::vector<Contrast> Contrasts(const heed::Translator& t) {
  heed::TranslateOptions plain;
  plain.to = "de";
  plain.attention = true;  // for the candidates of each step
  std::vector<Contrast> out;
  for (const char* line : kLines) {
    const heed::SentenceResult s = t.Translate(line, plain).sentences[0];
    const std::vector<std::string>& pieces = s.best.pieces;  // ends in </s>
    if (pieces.size() < 3 || s.alternatives.size() < pieces.size()) continue;
    const size_t step = (pieces.size() - 1) / 2;
    Contrast c{line, {pieces.begin(), pieces.begin() + step + 1}, {}};
    for (const heed::Alternative& a : s.alternatives[step]) {
      if (a.piece != pieces[step] && a.piece != "</s>") {
        c.other = c.chosen;
        c.other.back() = a.piece;
        break;
      }
    }
    if (!c.other.empty()) out.push_back(std::move(c));
  }
  return out;
}

double ContrastiveSeconds(const heed::Translator& t,
                          const std::vector<Contrast>& contrasts) {
  const auto t0 = Clock::now();
  for (const Contrast& c : contrasts) {
    for (const auto* prefix : {&c.chosen, &c.other}) {
      heed::TranslateOptions o;
      o.to = "de";
      o.erasure = "remove";
      o.target_prefix_pieces = *prefix;
      t.Translate(c.line, o);
    }
  }
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const std::string model = argc > 1 ? argv[1]
                                       : std::string(HEED_SOURCE_DIR) +
                                             "/models/heed-en-de-int8.heed";
    const int rounds = argc > 2 ? std::max(1, std::atoi(argv[2])) : 5;
    if (argc > 3) heed::ops::LimitSimdTarget(argv[3]);
    const heed::Translator t = heed::Translator::FromFile(model);
    const std::vector<Contrast> contrasts = Contrasts(t);
    constexpr size_t n = std::size(kConfigs);
    std::vector<std::vector<double>> times(n + 1);  // and contrastive
    for (int round = 0; round < rounds; ++round) {
      for (size_t c = 0; c < n; ++c) {
        heed::TranslateOptions o;
        o.to = "de";
        kConfigs[c].set(o);
        times[c].push_back(Seconds(t, o));
      }
      times[n].push_back(ContrastiveSeconds(t, contrasts));
    }
    auto median = [](std::vector<double> v) {
      std::sort(v.begin(), v.end());
      return v[v.size() / 2];
    };
    const double plain = median(times[0]);
    std::cout << "SIMD target " << heed::ops::SimdTarget() << "\n\n"
              << "| configuration | median ms (" << std::size(kLines)
              << " sentences, beam 4) | × plain |\n| --- | ---: | ---: |\n";
    for (size_t c = 0; c < n; ++c) {
      const double m = median(times[c]);
      std::cout << "| " << kConfigs[c].name << " | " << m * 1000 << " | "
                << m / plain << " |\n";
    }
    const double m = median(times[n]);
    std::cout << "| contrastive \"why not?\" at the middle step ("
              << contrasts.size() << " of the sentences) | " << m * 1000
              << " | " << m / plain << " |\n";
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "explain_bench: " << e.what() << "\n";
    return 1;
  }
}
