// ALTI and ALTI+ (core/explain/alti.h): a hand-worked block, and the
// engine's contributions and rollouts against PyTorch's
// (tests/reference/make_alti.py).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "core/explain/alti.h"
#include "core/model/model.h"
#include "core/translator.h"
#include "tests/test_util.h"

namespace heed {
namespace {

TEST_CASE("ALTI of a pre-norm block, worked by hand") {
  // One head, two tokens, d = 2; f(x_0) = (1, 0), f(x_1) = (0, 2); row 0
  // attends α = (0.5, 0.5); no bias; x_0 = (1, 1).
  const std::vector<float> f = {1, 0, 0, 2};
  const std::vector<float> probs = {0.5f, 0.5f, 0, 1};
  const std::vector<float> x = {1, 1, 0, 0};
  AltiBlock b;
  b.heads = 1;
  b.rows = 2;
  b.keys = 2;
  b.d = 2;
  b.head_outputs = f.data();
  b.probs = probs.data();
  b.residual = x.data();
  std::vector<float> c(4);
  AltiContributions(b, c.data());
  // Row 0: z_00 = (0.5, 0), z_01 = (0, 1); y = x_0 + z = (1.5, 2), ‖y‖₁ =
  // 3.5. T_00 = z_00 + x_0 = (1.5, 1): distance 1, c = 2.5; T_01 = (0, 1):
  // distance 2.5, c = 1. Normalised: 2.5/3.5, 1/3.5.
  CHECK(c[0] == doctest::Approx(2.5 / 3.5));
  CHECK(c[1] == doctest::Approx(1.0 / 3.5));
  // Row 1: y = (0, 2) all from x_1: c = (0, 1).
  CHECK(c[2] == doctest::Approx(0.0));
  CHECK(c[3] == doctest::Approx(1.0));
  // Switched off, the block adds nothing: the residual keeps everything.
  b.off = true;
  AltiContributions(b, c.data());
  CHECK(c == std::vector<float>{1, 0, 0, 1});
}

TEST_CASE("ALTI and ALTI+ match PyTorch") {
  for (const std::string name : {"tiny_postnorm", "tiny_prenorm"}) {
    INFO("model ", name);
    const nlohmann::json gold =
        test::ReadJson(test::Fixture(name + "_alti.json"));
    const nlohmann::json inputs = test::ReadJson(test::Fixture(name + ".json"));
    const Model model =
        Model::Load(ModelFile::Open(test::Fixture(name + ".heed")));
    const ModelConfig& c = model.config();
    const auto sources = inputs["sources"].get<std::vector<std::vector<int>>>();
    RunOptions run;
    run.capture_attention = true;
    run.capture_alti = true;
    const EncoderOutput enc = model.Encode(sources, run);
    REQUIRE(gold.size() == sources.size());
    for (size_t b = 0; b < sources.size(); ++b) {
      INFO("sentence ", b);
      const nlohmann::json& want = gold[b];
      const auto forced = want["inputs"].get<std::vector<int>>();
      const size_t S = sources[b].size(), T = forced.size();
      CHECK(test::MaxAbsDiff(want["encoder"], enc.alti[b]) <= 1e-4);
      ForcedCaptures kept;
      model.ForcedLogProbs(enc, b, forced, run, &kept);
      CHECK(test::MaxAbsDiff(want["self"], kept.alti_self) <= 1e-4);
      CHECK(test::MaxAbsDiff(want["cross"], kept.alti_cross) <= 1e-4);
      const std::vector<float> rollout =
          AltiRollout(enc.alti[b], c.encoder_layers, S);
      CHECK(test::MaxAbsDiff(want["encoder_rollout"], rollout) <= 1e-4);
      const std::vector<float> alti = AltiPlus(
          kept.alti_self, kept.alti_cross,
          &rollout[(c.encoder_layers - 1) * S * S], c.decoder_layers, T, S);
      CHECK(test::MaxAbsDiff(want["alti"], alti) <= 1e-4);
    }
  }
}

TEST_CASE("the translator's ALTI+: rows sum to 1, the prefix only before") {
  const Translator t =
      Translator::FromFile(test::Fixture("tiny_postnorm.heed"));
  TranslateOptions o;
  o.to = "de";
  o.alti = true;
  const Result r = t.Translate("A dog runs. Two men play.", o);
  REQUIRE(r.sentences.size() == 2);
  for (const SentenceResult& s : r.sentences) {
    const Attention& a = s.attention;
    const size_t S = a.source, T = a.target, W = S + T;
    REQUIRE(a.alti_encoder.size() == a.encoder_layers * S * S);
    REQUIRE(a.alti.size() == a.decoder_layers * T * W);
    for (size_t row = 0; row < a.decoder_layers * T; ++row) {
      const size_t i = row % T;
      double sum = 0;
      for (size_t j = 0; j < W; ++j) {
        const float v = a.alti[row * W + j];
        CHECK(v >= 0.0f);
        if (j >= S + i + 1) CHECK(v == 0.0f);  // a later decoder input
        sum += v;
      }
      CHECK(sum == doctest::Approx(1.0).epsilon(1e-5));
    }
  }
  // Asked for alone, ALTI+ brings the attention it is computed from.
  CHECK(!r.sentences[0].attention.cross.empty());
  o.alti = false;
  o.attention = true;
  CHECK(t.Translate("A dog runs.", o).sentences[0].attention.alti.empty());
}

}  // namespace
}  // namespace heed
