// Explanations derived from attention, against hand-worked examples.
#include <doctest/doctest.h>

#include <vector>

#include "core/error.h"
#include "core/explain/rollout.h"
#include "core/translator.h"
#include "tests/test_util.h"

namespace heed {
namespace {

TEST_CASE("attention rollout: a hand-worked example") {
  // Two layers, two heads, two tokens; worked in the comment of each value.
  const std::vector<float> attention = {
      1, 0, 0.5f, 0.5f,  // layer 0, head 0
      0, 1, 0.5f, 0.5f,  // layer 0, head 1: mean [[.5 .5] [.5 .5]]
      1, 0, 1,    0,     // layer 1, head 0
      1, 0, 1,    0,     // layer 1, head 1: mean [[1 0] [1 0]]
  };
  const std::vector<float> r = AttentionRollout(attention, 2, 2, 2);
  // Â0 = .5·mean + .5·I = [[.75 .25] [.25 .75]] = R0.
  // Â1 = [[1 0] [.5 .5]]; R1 = Â1 · R0 = [[.75 .25] [.5 .5]].
  const std::vector<float> want = {0.75f, 0.25f, 0.25f, 0.75f,
                                   0.75f, 0.25f, 0.5f,  0.5f};
  REQUIRE(r.size() == want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    CHECK(r[i] == doctest::Approx(want[i]).epsilon(1e-6));
  }
  CHECK_THROWS_AS(AttentionRollout(attention, 2, 2, 3), Error);
}

TEST_CASE("the translator's rollout: one per encoder layer, rows sum to 1") {
  const Translator t = Translator::FromFile(test::Fixture("tiny_prenorm.heed"));
  TranslateOptions o;
  o.to = "de";
  o.attention = true;
  const Result r = t.Translate("A dog runs.", o);
  const Attention& a = r.sentences.at(0).attention;
  const size_t S = a.source;
  REQUIRE(a.rollout.size() == a.encoder_layers * S * S);
  for (size_t row = 0; row < a.encoder_layers * S; ++row) {
    double sum = 0;
    for (size_t j = 0; j < S; ++j) sum += a.rollout[row * S + j];
    CHECK(sum == doctest::Approx(1.0).epsilon(1e-5));
  }
  // The last layer's rollout from the returned encoder attention.
  const std::vector<float> again =
      AttentionRollout(a.encoder, a.encoder_layers, a.heads, S);
  CHECK(again == a.rollout);
}

}  // namespace
}  // namespace heed
