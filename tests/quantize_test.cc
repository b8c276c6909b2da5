// int8 model files: what QuantizeModel writes, how close the int8 model
// stays to the float one, and bad int8 files.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "core/decode/search.h"
#include "core/error.h"
#include "core/model/model.h"
#include "core/model/quantize.h"
#include "core/translator.h"
#include "tests/test_util.h"

namespace heed {
namespace {

std::vector<std::vector<int>> Sources() {
  return test::ReadJson(test::Fixture("tiny_prenorm.json"))["sources"]
      .get<std::vector<std::vector<int>>>();
}

std::vector<uint8_t> Quantized(const std::string& fixture) {
  return QuantizeModel(
      ModelFile::FromBytes(test::ReadBytes(test::Fixture(fixture))));
}

TEST_CASE(
    "an int8 copy has I8 matrices with row scales and the rest as it was") {
  const auto bytes = test::ReadBytes(test::Fixture("tiny_prenorm.heed"));
  const ModelFile in = ModelFile::FromBytes(bytes);
  const ModelFile out = ModelFile::FromBytes(Quantized("tiny_prenorm.heed"));
  size_t matrices = 0;
  for (const TensorInfo& t : in.tensors()) {
    const TensorInfo* q = out.Find(t.name);
    REQUIRE(q != nullptr);
    CHECK(q->shape == t.shape);
    const bool matrix = t.shape.size() == 2 && t.name.size() > 7 &&
                        t.name.substr(t.name.size() - 7) == ".weight";
    if (matrix) {
      ++matrices;
      CHECK(q->dtype == DType::kI8);
      const TensorInfo* s = out.Find(t.name + "_scale");
      REQUIRE(s != nullptr);
      CHECK(s->dtype == DType::kF32);
      CHECK(s->shape == std::vector<size_t>{t.shape[0]});
    } else {
      CHECK(q->dtype == t.dtype);
      REQUIRE(q->bytes == t.bytes);
      CHECK(std::memcmp(out.data(*q), in.data(t), t.bytes) == 0);
    }
  }
  CHECK(matrices > 10);
  CHECK(out.metadata().at("config") == in.metadata().at("config"));
  CHECK(Translator::FromBytes(Quantized("tiny_prenorm.heed")).parameters() ==
        Translator::FromBytes(bytes).parameters());
  // Quantising again changes nothing.
  CHECK(QuantizeModel(out).size() == Quantized("tiny_prenorm.heed").size());
}

// ‖got − want‖ / ‖want‖.
double RelativeError(const std::vector<float>& want,
                     const std::vector<float>& got) {
  double err = 0, norm = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    err += (want[i] - got[i]) * (want[i] - got[i]);
    norm += want[i] * want[i];
  }
  return std::sqrt(err / norm);
}

TEST_CASE("the int8 model stays close to the float one") {
  for (const char* name : {"tiny_postnorm.heed", "tiny_prenorm.heed"}) {
    INFO("model ", std::string(name));
    const Model f =
        Model::Load(ModelFile::FromBytes(test::ReadBytes(test::Fixture(name))));
    const Model q = Model::Load(ModelFile::FromBytes(Quantized(name)));
    const EncoderOutput ef = f.Encode(Sources(), {});
    const EncoderOutput eq = q.Encode(Sources(), {});
    const double err = RelativeError(ef.memory, eq.memory);
    MESSAGE("encoder output relative error ", err);
    CHECK(err < 0.03);
    // The probabilities of the float model's greedy output, token by token.
    const auto found = GreedySearch(f, ef, DecodingOptions{}, {});
    const size_t V = f.config().target_vocab;
    double worst = 0;
    for (size_t b = 0; b < ef.batch; ++b) {
      std::vector<int> inputs = {f.config().bos_id};
      const auto& tokens = found[b][0].tokens;
      inputs.insert(inputs.end(), tokens.begin(), tokens.end() - 1);
      const auto lf = f.ForcedLogProbs(ef, b, inputs, {});
      const auto lq = q.ForcedLogProbs(eq, b, inputs, {});
      for (size_t i = 0; i < tokens.size(); ++i) {
        const size_t at = i * V + tokens[i];
        worst = std::max<double>(worst,
                                 std::abs(std::exp(lf[at]) - std::exp(lq[at])));
      }
    }
    MESSAGE("largest probability difference ", worst);
    CHECK(worst < 0.05);
  }
}

TEST_CASE("the shipped model's int8 copy is under 60% of its size") {
  const auto bytes =
      test::ReadBytes(std::string(HEED_SOURCE_DIR) + "/models/heed-en-de.heed");
  const auto q = QuantizeModel(ModelFile::FromBytes(bytes));
  CHECK(q.size() < bytes.size() * 6 / 10);
  TranslateOptions o;
  o.to = "en";
  o.beam_size = 1;
  const std::string text = "Ein Hund läuft im Park.";
  CHECK(Translator::FromBytes(q).Translate(text, o).text ==
        Translator::FromBytes(bytes).Translate(text, o).text);
}

// The quantised fixture with one header entry changed by `edit`.
std::vector<uint8_t> Edited(void (*edit)(test::SplitFile&)) {
  test::SplitFile f = test::Split(Quantized("tiny_postnorm.heed"));
  edit(f);
  return test::Join(f);
}

// The quantised fixture with tensor `name` = value appended, F32 (1).
std::vector<uint8_t> WithAlpha(const std::string& name, float value) {
  test::SplitFile f = test::Split(Quantized("tiny_postnorm.heed"));
  while (f.data.size() % 4 != 0) f.data.push_back(0);
  const size_t at = f.data.size();
  f.data.resize(at + 4);
  std::memcpy(&f.data[at], &value, 4);
  f.header[name] = {
      {"dtype", "F32"}, {"shape", {1}}, {"data_offsets", {at, at + 4}}};
  return test::Join(f);
}

// Relative distance of the encoder output of `bytes` from the float model's.
double EncoderError(const std::vector<uint8_t>& bytes) {
  const Model f = Model::Load(ModelFile::FromBytes(
      test::ReadBytes(test::Fixture("tiny_postnorm.heed"))));
  const Model q = Model::Load(ModelFile::FromBytes(bytes));
  const EncoderOutput ef = f.Encode(Sources(), {});
  const EncoderOutput eq = q.Encode(Sources(), {});
  return RelativeError(ef.memory, eq.memory);
}

TEST_CASE("a matrix's calibrated input range (_alpha) is read and checked") {
  const std::string fc1 = "encoder.layers.0.fc1.weight_alpha";
  const double dynamic = EncoderError(Quantized("tiny_postnorm.heed"));
  // A range far too narrow clips the layer's inputs: the output moves far.
  const double clipped = EncoderError(WithAlpha(fc1, 1e-3f));
  // A generous one rounds them more coarsely than each row's own maximum.
  const double generous = EncoderError(WithAlpha(fc1, 20.0f));
  MESSAGE("encoder error: dynamic ", dynamic, ", range 20 ", generous,
          ", range 0.001 ", clipped);
  CHECK(generous < 0.1);
  CHECK(generous != dynamic);
  CHECK(clipped > 5 * generous);
  for (float bad : {0.0f, -1.0f, std::nanf(""), INFINITY}) {
    CHECK(test::LoadError(WithAlpha(fc1, bad))
              .find("not a positive finite range") != std::string::npos);
  }
  // Only where the file has the matrix: an alpha of nothing is unknown.
  CHECK(test::LoadError(WithAlpha("encoder.layers.0.fc9.weight_alpha", 1.0f))
            .find("encoder.layers.0.fc9.weight_alpha") != std::string::npos);
}

TEST_CASE("bad int8 files give clear errors") {
  const std::string scale = "decoder.layers.0.fc1.weight_scale";
  CHECK(test::LoadError(Edited([](test::SplitFile& f) {
          f.header.erase("decoder.layers.0.fc1.weight_scale");
        })).find("missing tensor '" + scale + "'") != std::string::npos);
  CHECK(test::LoadError(Edited([](test::SplitFile& f) {
          f.header["decoder.layers.0.fc1.weight_scale"]["dtype"] = "I8";
          auto& r =
              f.header["decoder.layers.0.fc1.weight_scale"]["data_offsets"];
          r[1] = r[0].get<size_t>() +
                 f.header["decoder.layers.0.fc1.weight_scale"]["shape"][0]
                     .get<size_t>();
        })).find("expected F32 or F16") != std::string::npos);
  CHECK(test::LoadError(Edited([](test::SplitFile& f) {
          const size_t at =
              f.header["decoder.layers.0.fc1.weight_scale"]["data_offsets"][0];
          const float bad = -1.0f;
          std::memcpy(&f.data[at + 4], &bad, 4);
        })).find("row 1 is -1") != std::string::npos);
  CHECK(test::LoadError(Edited([](test::SplitFile& f) {
          const size_t at =
              f.header["decoder.layers.0.fc1.weight_scale"]["data_offsets"][0];
          const float bad = std::nanf("");
          std::memcpy(&f.data[at], &bad, 4);
        })).find("not a scale in [0, 65504 / 127]") != std::string::npos);
  // Finite but so large that dequantised weights would overflow.
  CHECK(test::LoadError(Edited([](test::SplitFile& f) {
          const size_t at =
              f.header["decoder.layers.0.fc1.weight_scale"]["data_offsets"][0];
          const float bad = 3e38f;
          std::memcpy(&f.data[at], &bad, 4);
        })).find("not a scale in [0, 65504 / 127]") != std::string::npos);
  // A vector (a LayerNorm's gain) cannot be I8.
  CHECK(test::LoadError(Edited([](test::SplitFile& f) {
          auto& t = f.header["encoder.layers.0.final_layer_norm.weight"];
          t["dtype"] = "I8";
          t["data_offsets"][1] =
              t["data_offsets"][0].get<size_t>() + t["shape"][0].get<size_t>();
        })).find("reads F32, F16 and (matrices) I8") != std::string::npos);
}

}  // namespace
}  // namespace heed
