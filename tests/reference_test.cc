// The engine against golden outputs of the PyTorch reference
// (tests/reference/make_fixtures.py): encoder states, teacher-forced
// log-probs, attention maps, head masking, greedy and beam-4 n-best.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "core/decode/search.h"
#include "core/model/model.h"
#include "core/translator.h"
#include "tests/test_util.h"

namespace heed {
namespace {

constexpr double kLogProbTolerance = 1e-4;
constexpr double kAttentionTolerance = 1e-5;

struct Golden {
  nlohmann::json g;
  Model model;
  std::vector<std::vector<int>> sources;
};

Golden Load(const std::string& name) {
  nlohmann::json g = test::ReadJson(test::Fixture(name + ".json"));
  Model model = Model::Load(ModelFile::Open(test::Fixture(name + ".heed")));
  auto sources = g["sources"].get<std::vector<std::vector<int>>>();
  return Golden{std::move(g), std::move(model), std::move(sources)};
}

void CheckModel(const std::string& name) {
  INFO("model ", name);
  const Golden gold = Load(name);
  const nlohmann::json& g = gold.g;
  const Model& model = gold.model;
  const ModelConfig& c = model.config();
  const size_t d = c.d_model;
  RunOptions run;
  run.capture_attention = true;
  const EncoderOutput enc = model.Encode(gold.sources, run);

  SUBCASE("encoder output and attention, in a padded batch") {
    for (size_t b = 0; b < enc.batch; ++b) {
      INFO("sentence ", b);
      const size_t len = enc.lengths[b];
      std::vector<float> memory(
          enc.memory.begin() + b * enc.max_len * d,
          enc.memory.begin() + (b * enc.max_len + len) * d);
      CHECK(test::MaxAbsDiff(memory, test::Flat(g["memory"][b])) <= 1e-4);
      CHECK(test::MaxAbsDiff(enc.attention[b],
                             test::Flat(g["encoder_attention"][b])) <=
            kAttentionTolerance);
    }
  }

  SUBCASE("teacher-forced log-probs and decoder attention") {
    for (const auto& f : g["forced"]) {
      const size_t b = f["sentence"];
      INFO("sentence ", b);
      ForcedCaptures kept;
      const auto lp = model.ForcedLogProbs(enc, b, f["inputs"], run, &kept);
      const std::vector<float>& self = kept.self_probs;
      const std::vector<float>& cross = kept.cross_probs;
      CHECK(test::MaxAbsDiff(lp, test::Flat(f["log_probs"])) <=
            kLogProbTolerance);
      CHECK(test::MaxAbsDiff(self, test::Flat(f["self_attention"])) <=
            kAttentionTolerance);
      CHECK(test::MaxAbsDiff(cross, test::Flat(f["cross_attention"])) <=
            kAttentionTolerance);
    }
  }

  SUBCASE("head masking") {
    RunOptions masked;
    for (const auto& h : g["masked"]["heads"]) {
      const int kind = h[0];
      const size_t layers = kind == 0 ? c.encoder_layers : c.decoder_layers;
      auto& flags = masked.head_mask.disabled[kind];
      flags.resize(layers * c.heads, 0);
      flags[h[1].get<size_t>() * c.heads + h[2].get<size_t>()] = 1;
    }
    const EncoderOutput menc = model.Encode(gold.sources, masked);
    for (const auto& f : g["masked"]["forced"]) {
      const size_t b = f["sentence"];
      INFO("sentence ", b);
      const auto lp = model.ForcedLogProbs(menc, b, f["inputs"], masked);
      CHECK(test::MaxAbsDiff(lp, test::Flat(f["log_probs"])) <=
            kLogProbTolerance);
      const auto plain = model.ForcedLogProbs(enc, b, f["inputs"], {});
      CHECK(test::MaxAbsDiff(lp, plain) > 1e-3);  // the mask did something
    }
  }

  SUBCASE("greedy and beam-4 n-best") {
    DecodingOptions o;
    o.no_repeat_ngram_size = 0;  // PyTorch's search has no such rule
    o.length_penalty = 0.6f;     // the α make_fixtures.py searched with
    o.beam_size = 1;
    const auto greedy = GreedySearch(model, enc, o, {});
    for (size_t b = 0; b < enc.batch; ++b) {
      CHECK(greedy[b][0].tokens == g["greedy"][b].get<std::vector<int>>());
    }
    o.beam_size = 4;
    o.nbest = 4;
    const auto beam = BeamSearch(model, enc, o, {});
    for (size_t b = 0; b < enc.batch; ++b) {
      INFO("sentence ", b);
      const auto& want = g["beam4"][b];
      REQUIRE(beam[b].size() == want.size());
      for (size_t i = 0; i < want.size(); ++i) {
        CHECK(beam[b][i].tokens == want[i]["tokens"].get<std::vector<int>>());
        CHECK(beam[b][i].score ==
              doctest::Approx(want[i]["score"].get<double>()).epsilon(1e-4));
      }
    }
  }

  SUBCASE("the translator's tokenisation, tags and greedy output") {
    const Translator t = Translator::FromFile(test::Fixture(name + ".heed"));
    for (size_t b = 0; b < gold.sources.size(); ++b) {
      const Result r = test::TranslateFixture(t, g, b, {});
      REQUIRE(r.sentences.size() == 1);
      CHECK(r.sentences[0].source_ids == gold.sources[b]);
      CHECK(r.sentences[0].best.ids == g["greedy"][b].get<std::vector<int>>());
    }
  }
}

TEST_CASE("post-norm F32 model matches PyTorch") {
  CheckModel("tiny_postnorm");
}
TEST_CASE("pre-norm F16 model (untied, GELU, output bias) matches PyTorch") {
  CheckModel("tiny_prenorm");
}
TEST_CASE("Marian's positions (halves) and zero decoder start match PyTorch") {
  CheckModel("tiny_marian");
}

}  // namespace
}  // namespace heed
