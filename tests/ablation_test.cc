// Switching parts of the model off: a sublayer switched off is the model
// with that sublayer's output projection zeroed; without positions the
// encoder cannot tell word order; shuffled positions are the sentence in
// another order.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "core/decode/search.h"
#include "core/model/model.h"
#include "core/model/positional.h"
#include "core/model/run_options.h"
#include "tests/test_util.h"

namespace heed {
namespace {

// The fixture with the named tensors' weights and biases set to 0.
Model Zeroed(const char* name, const std::string& prefix) {
  test::SplitFile f = test::Split(test::ReadBytes(test::Fixture(name)));
  for (const char* part : {"weight", "bias"}) {
    const auto& at = f.header.at(prefix + "." + part)["data_offsets"];
    std::fill(f.data.begin() + at[0].get<size_t>(),
              f.data.begin() + at[1].get<size_t>(), 0);
  }
  return Model::Load(ModelFile::FromBytes(test::Join(f)));
}

std::vector<std::vector<int>> Sources() {
  return test::ReadJson(test::Fixture("tiny_prenorm.json"))["sources"]
      .get<std::vector<std::vector<int>>>();
}

struct Case {
  SublayerKind kind;
  const char* tensor;  // its output projection, in layer 1
};

TEST_CASE("a sublayer switched off is its output projection zeroed") {
  const Case cases[] = {
      {SublayerKind::kEncoderSelf, "encoder.layers.1.self_attn.out_proj"},
      {SublayerKind::kEncoderFfn, "encoder.layers.1.fc2"},
      {SublayerKind::kDecoderSelf, "decoder.layers.1.self_attn.out_proj"},
      {SublayerKind::kCross, "decoder.layers.1.encoder_attn.out_proj"},
      {SublayerKind::kDecoderFfn, "decoder.layers.1.fc2"},
  };
  const std::vector<std::vector<int>> sources = Sources();
  for (const char* name : {"tiny_postnorm.heed", "tiny_prenorm.heed"}) {
    const Model model = Model::Load(ModelFile::Open(test::Fixture(name)));
    const EncoderOutput on = model.Encode(sources, {});
    for (const Case& c : cases) {
      INFO(name, " ", SublayerName(c.kind));
      const Model zeroed = Zeroed(name, c.tensor);
      RunOptions off;
      off.sublayers.off[static_cast<int>(c.kind)] = {0, 1};
      const EncoderOutput a = model.Encode(sources, off);
      const EncoderOutput b = zeroed.Encode(sources, {});
      CHECK(test::MaxAbsDiff(a.memory, b.memory) <= 1e-6);
      double changed = 0;  // the switch does something
      for (size_t s = 0; s < a.batch; ++s) {
        std::vector<int> inputs = {model.config().bos_id};
        inputs.insert(inputs.end(), sources[s].begin(), sources[s].end() - 1);
        for (int& t : inputs) {
          t %= static_cast<int>(model.config().target_vocab);
        }
        const auto got = model.ForcedLogProbs(a, s, inputs, off);
        const auto want = zeroed.ForcedLogProbs(b, s, inputs, {});
        CHECK(test::MaxAbsDiff(got, want) <= 1e-5);
        const auto normal = model.ForcedLogProbs(on, s, inputs, {});
        changed = std::max(changed, test::MaxAbsDiff(got, normal));
      }
      CHECK(changed > 1e-3);
    }
  }
}

// Row s of sentence b's memory, [d].
std::vector<float> Row(const EncoderOutput& enc, size_t b, size_t s, size_t d) {
  const float* p = &enc.memory[(b * enc.max_len + s) * d];
  return {p, p + d};
}

TEST_CASE("without positions the encoder only permutes with its input") {
  const Model model =
      Model::Load(ModelFile::Open(test::Fixture("tiny_postnorm.heed")));
  const size_t d = model.config().d_model;
  const std::vector<int> source = Sources()[0];
  const size_t n = source.size();
  REQUIRE(n >= 3);
  const std::vector<size_t> perm = ShuffledPositions(n);
  std::vector<int> permuted(n);
  for (size_t s = 0; s < n; ++s) permuted[perm[s]] = source[s];
  RunOptions none;
  none.positions = Positions::kOff;
  const EncoderOutput a = model.Encode({source, permuted}, none);
  const EncoderOutput on = model.Encode({source, permuted}, {});
  double moved = 0;
  for (size_t s = 0; s < n; ++s) {
    CHECK(test::MaxAbsDiff(Row(a, 0, s, d), Row(a, 1, perm[s], d)) <= 1e-5);
    moved = std::max(
        moved, test::MaxAbsDiff(Row(on, 0, s, d), Row(on, 1, perm[s], d)));
  }
  CHECK(moved > 1e-3);  // with positions, order matters
}

TEST_CASE("shuffled positions are the sentence reordered, then put back") {
  const Model model =
      Model::Load(ModelFile::Open(test::Fixture("tiny_prenorm.heed")));
  const size_t d = model.config().d_model;
  for (const std::vector<int>& source : Sources()) {
    const size_t n = source.size();
    const std::vector<size_t> perm = ShuffledPositions(n);
    std::vector<size_t> sorted = perm;
    std::sort(sorted.begin(), sorted.end());
    for (size_t i = 0; i < n; ++i) REQUIRE(sorted[i] == i);
    CHECK(perm == ShuffledPositions(n));  // fixed for each length
    if (n > 1) CHECK(!std::is_sorted(perm.begin(), perm.end()));
    // Token s at position perm[s] is the reordered sentence, token s at
    // perm[s], with positions as trained.
    std::vector<int> reordered(n);
    for (size_t s = 0; s < n; ++s) reordered[perm[s]] = source[s];
    RunOptions shuffled;
    shuffled.positions = Positions::kShuffled;
    const EncoderOutput a = model.Encode({source}, shuffled);
    const EncoderOutput b = model.Encode({reordered}, {});
    for (size_t s = 0; s < n; ++s) {
      CHECK(test::MaxAbsDiff(Row(a, 0, s, d), Row(b, 0, perm[s], d)) <= 1e-5);
    }
  }
}

SublayerKind KindNamed(const std::string& name) {
  for (int k = 0; k < kSublayerKinds; ++k) {
    const auto kind = static_cast<SublayerKind>(k);
    if (name == SublayerName(kind)) return kind;
  }
  FAIL("unknown sublayer ", name);
  return SublayerKind::kEncoderSelf;
}

TEST_CASE("parts switched off equal the PyTorch reference with them removed") {
  for (const char* name : {"tiny_postnorm", "tiny_prenorm"}) {
    const Model model = Model::Load(
        ModelFile::Open(test::Fixture(std::string(name) + ".heed")));
    const size_t d = model.config().d_model;
    const nlohmann::json gold =
        test::ReadJson(test::Fixture(std::string(name) + "_ablation.json"));
    const std::vector<std::vector<int>> sources = Sources();
    for (const nlohmann::json& c : gold["cases"]) {
      INFO(name, " ", c.dump().substr(0, 80));
      RunOptions run;
      for (const nlohmann::json& s : c.value("switch_off", nlohmann::json())) {
        const SublayerKind kind = KindNamed(s[0].get<std::string>());
        auto& layers = run.sublayers.off[static_cast<int>(kind)];
        layers.resize(InEncoder(kind) ? model.config().encoder_layers
                                      : model.config().decoder_layers,
                      0);
        layers.at(s[1].get<size_t>()) = 1;
      }
      const std::string positions = c.value("positions", "on");
      run.positions = positions == "off"        ? Positions::kOff
                      : positions == "shuffled" ? Positions::kShuffled
                                                : Positions::kOn;
      const EncoderOutput enc = model.Encode(sources, run);
      for (const nlohmann::json& r : c["results"]) {
        const size_t b = r["sentence"].get<size_t>();
        CHECK(ShuffledPositions(sources[b].size()) ==
              c["permutations"][b].get<std::vector<size_t>>());
        std::vector<float> memory;
        for (size_t s = 0; s < sources[b].size(); ++s) {
          const std::vector<float> row = Row(enc, b, s, d);
          memory.insert(memory.end(), row.begin(), row.end());
        }
        CHECK(test::MaxAbsDiff(memory, test::Flat(r["memory"])) <= 1e-4);
        const auto got = model.ForcedLogProbs(
            enc, b, r["inputs"].get<std::vector<int>>(), run);
        CHECK(test::MaxAbsDiff(got, test::Flat(r["log_probs"])) <= 1e-4);
      }
    }
  }
}

TEST_CASE("switches the model does not have are refused") {
  const Model model =
      Model::Load(ModelFile::Open(test::Fixture("tiny_prenorm.heed")));
  RunOptions run;
  run.sublayers.off[static_cast<int>(SublayerKind::kCross)] = {1, 0, 0, 0};
  CHECK_THROWS_WITH_AS(model.Encode(Sources(), run),
                       doctest::Contains("the model has 2 layers"), Error);
}

}  // namespace
}  // namespace heed
