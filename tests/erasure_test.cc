// Erasure attribution (core/explain/erasure.h) against PyTorch
// (tests/reference/make_erasure.py), and its errors.
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/explain/erasure.h"
#include "core/model/model.h"
#include "core/model/model_file.h"
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
    o.erasure = mode;
    const Result r = test::TranslateFixture(t, gold, b, o);
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
  o.erasure = "remove";
  o.positions = "shuffled";
  CHECK_THROWS_WITH_AS(t.Translate("A dog runs.", o),
                       "erasure by removal shortens the source, which "
                       "shuffles its positions differently: use erasure unk "
                       "with shuffled positions",
                       Error);
}

TEST_CASE(
    "erasure of a long source: passes of 64 sources give one pass's "
    "columns") {
  const Model model =
      Model::Load(ModelFile::Open(test::Fixture("tiny_postnorm.heed")));
  std::vector<int> source;
  for (int i = 0; i < 90; ++i) source.push_back(10 + i % 50);
  source.push_back(model.config().eos_id);
  const std::vector<int> target = {20, 21, 22, model.config().eos_id};
  for (ErasureMode mode : {ErasureMode::kRemove, ErasureMode::kUnk}) {
    std::vector<uint8_t> all(source.size(), 1), tail(source.size(), 0);
    all.back() = 0;
    for (size_t j = 70; j < 80; ++j) tail[j] = 1;  // one pass, past 64
    const auto whole = ErasureEffects(model, source, all, target, mode, {});
    const auto part = ErasureEffects(model, source, tail, target, mode, {});
    const size_t S = source.size();
    for (size_t t = 0; t < target.size(); ++t) {
      for (size_t j = 70; j < 80; ++j) {
        CHECK(whole[t * S + j] ==
              doctest::Approx(part[t * S + j]).epsilon(1e-5));
      }
      CHECK(whole[t * S + S - 1] == 0.0f);
    }
  }
}

}  // namespace
}  // namespace heed
