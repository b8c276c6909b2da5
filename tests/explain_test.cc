// Explanations derived from attention, against hand-worked examples.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "core/decode/search.h"
#include "core/error.h"
#include "core/explain/contributions.h"
#include "core/explain/rollout.h"
#include "core/model/model.h"
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

TEST_CASE("value norms and contributions match PyTorch") {
  for (const std::string name : {"tiny_postnorm", "tiny_prenorm"}) {
    INFO("model ", name);
    const nlohmann::json gold =
        test::ReadJson(test::Fixture(name + "_contributions.json"));
    const nlohmann::json g = test::ReadJson(test::Fixture(name + ".json"));
    const Model model =
        Model::Load(ModelFile::Open(test::Fixture(name + ".heed")));
    const ModelConfig& c = model.config();
    RunOptions run;
    run.capture_value_norms = true;
    const auto sources = g["sources"].get<std::vector<std::vector<int>>>();
    const EncoderOutput enc = model.Encode(sources, run);
    const Translator t = Translator::FromFile(test::Fixture(name + ".heed"));
    for (size_t b = 0; b < sources.size(); ++b) {
      const size_t len = sources[b].size();
      const auto& want = gold[b];
      double worst = 0;
      for (size_t l = 0; l < c.encoder_layers; ++l) {
        for (size_t h = 0; h < c.heads; ++h) {
          for (size_t j = 0; j < len; ++j) {
            const double w = want["encoder"][l][h][j].get<double>();
            const double got = enc.value_norms[b][(l * c.heads + h) * len + j];
            worst = std::max(worst, std::abs(got - w) / (1 + std::abs(w)));
          }
        }
      }
      for (size_t l = 0; l < c.decoder_layers; ++l) {
        for (size_t h = 0; h < c.heads; ++h) {
          for (size_t j = 0; j < len; ++j) {
            const double w = want["cross"][l][h][j].get<double>();
            const double got =
                enc.cross_value_norms[b][(l * c.heads + h) * len + j];
            worst = std::max(worst, std::abs(got - w) / (1 + std::abs(w)));
          }
        }
      }
      CHECK(worst <= 1e-4);
      // Through the translator: α_ij · ‖f_h(x_j)‖ with PyTorch's norms.
      TranslateOptions o;
      o.to = g["to"][b].get<std::string>();
      o.contributions = true;
      const Result r = t.Translate(g["texts"][b].get<std::string>(), o);
      const Attention& a = r.sentences.at(0).attention;
      REQUIRE(a.source == len);
      REQUIRE(a.encoder_contributions.size() == a.encoder.size());
      REQUIRE(a.cross_contributions.size() == a.cross.size());
      REQUIRE(a.decoder_contributions.size() == a.decoder.size());
      for (size_t lh = 0; lh < c.encoder_layers * c.heads; ++lh) {
        for (size_t i = 0; i < len; ++i) {
          for (size_t j = 0; j < len; ++j) {
            const size_t at = (lh * len + i) * len + j;
            const double w =
                a.encoder[at] *
                want["encoder"][lh / c.heads][lh % c.heads][j].get<double>();
            CHECK(a.encoder_contributions[at] ==
                  doctest::Approx(w).epsilon(1e-4));
          }
        }
      }
    }
  }
}

TEST_CASE(
    "sublayer and self-attention value norms of the decoder match PyTorch") {
  for (const std::string name : {"tiny_postnorm", "tiny_prenorm"}) {
    INFO("model ", name);
    const nlohmann::json gold =
        test::ReadJson(test::Fixture(name + "_contributions.json"));
    const nlohmann::json g = test::ReadJson(test::Fixture(name + ".json"));
    const Model model =
        Model::Load(ModelFile::Open(test::Fixture(name + ".heed")));
    const size_t L = model.config().decoder_layers;
    const auto sources = g["sources"].get<std::vector<std::vector<int>>>();
    RunOptions run;
    run.capture_sublayer_norms = true;
    run.capture_value_norms = true;
    const size_t H = model.config().heads;
    for (size_t b = 0; b < sources.size(); ++b) {
      const auto inputs = gold[b]["inputs"].get<std::vector<int>>();
      DecodingOptions o;
      o.beam_size = 1;
      o.forced_prefix.assign(inputs.begin() + 1, inputs.end());
      o.max_length_extra = 100;
      const EncoderOutput enc = model.Encode({sources[b]}, run);
      const Hypothesis h = Search(model, enc, o, run)[0][0];
      const size_t T = h.tokens.size();
      REQUIRE(h.sublayer_norms.size() == L * T * 4);
      REQUIRE(T >= inputs.size());
      double worst = 0;
      for (size_t l = 0; l < L; ++l) {
        for (size_t i = 0; i < inputs.size(); ++i) {
          for (size_t k = 0; k < 4; ++k) {
            const double w = gold[b]["sublayer_norms"][l][i][k].get<double>();
            const double got = h.sublayer_norms[(l * T + i) * 4 + k];
            worst = std::max(worst, std::abs(got - w) / (1 + std::abs(w)));
          }
        }
      }
      CHECK(worst <= 1e-4);
      // ‖f_h(decoder input i)‖ of each self-attention head.
      REQUIRE(h.decoder_value_norms.size() == L * H * T);
      worst = 0;
      for (size_t lh = 0; lh < L * H; ++lh) {
        for (size_t i = 0; i < inputs.size(); ++i) {
          const double w = gold[b]["decoder"][lh / H][lh % H][i].get<double>();
          const double got = h.decoder_value_norms[lh * T + i];
          worst = std::max(worst, std::abs(got - w) / (1 + std::abs(w)));
        }
      }
      CHECK(worst <= 1e-4);
    }
  }
}

TEST_CASE("norm-weighted maps: a hand-worked example, bad shapes refused") {
  // One layer, one head, 2 × 2: α · ‖f(x_j)‖ scales column j.
  const std::vector<float> w =
      NormWeighted({0.25f, 0.75f, 1.0f, 0.0f}, {2.0f, 0.5f}, 1, 1, 2, 2);
  CHECK(w == std::vector<float>{0.5f, 0.375f, 2.0f, 0.0f});
  CHECK_THROWS_AS(NormWeighted({1, 2, 3}, {1, 2}, 1, 1, 2, 2), Error);
}

}  // namespace
}  // namespace heed
