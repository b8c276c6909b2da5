// Erasure attribution (core/explain/erasure.h) against PyTorch
// (tests/reference/make_erasure.py), and its errors.
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/translator.h"
#include "tests/test_util.h"

namespace heed {
namespace {

void CheckAgainstPyTorch(const std::string& name, const std::string& mode) {
  const nlohmann::json gold = test::ReadJson(test::Fixture(name + ".json"));
  const nlohmann::json want =
      test::ReadJson(test::Fixture(name + "_erasure.json"))["sentences"];
  const Translator t = Translator::FromFile(test::Fixture(name + ".heed"));
  for (size_t b = 0; b < want.size(); ++b) {
    CAPTURE(b);
    TranslateOptions o;
    o.no_repeat_ngram_size = 0;
    o.beam_size = 1;
    o.erasure = mode;
    o.to = gold["to"][b];
    const Result r = t.Translate(gold["texts"][b].get<std::string>(), o);
    REQUIRE(r.sentences.size() == 1);
    const SentenceResult& s = r.sentences[0];
    REQUIRE(s.best.ids == gold["greedy"][b].get<std::vector<int>>());
    CHECK(s.erasure_mode == mode);
    const auto& rows = want[b][mode];
    const size_t S = s.source_ids.size();
    REQUIRE(s.erasure.size() == rows.size() * S);
    double worst = 0;
    for (size_t i = 0; i < rows.size(); ++i) {
      for (size_t j = 0; j < S; ++j) {
        worst = std::max(
            worst, std::fabs(s.erasure[i * S + j] - rows[i][j].get<double>()));
      }
      CHECK(s.erasure[i * S] == 0.0f);          // the tag is not erased
      CHECK(s.erasure[i * S + S - 1] == 0.0f);  // nor EOS
    }
    CHECK(worst <= 1e-4);
  }
}

TEST_CASE("erasure effects match PyTorch, pieces removed or replaced") {
  for (const char* mode : {"remove", "unk"}) {
    CAPTURE(mode);
    CheckAgainstPyTorch("tiny_postnorm", mode);
    CheckAgainstPyTorch("tiny_prenorm", mode);
  }
}

TEST_CASE("erasure: off by default, a bad mode refused") {
  const Translator t =
      Translator::FromFile(test::Fixture("tiny_postnorm.heed"));
  TranslateOptions o;
  o.to = "de";
  CHECK(t.Translate("A dog runs.", o).sentences[0].erasure.empty());
  o.erasure = "occlude";
  CHECK_THROWS_WITH_AS(t.Translate("A dog runs.", o),
                       "erasure must be off, remove or unk, not 'occlude'",
                       Error);
}

}  // namespace
}  // namespace heed
