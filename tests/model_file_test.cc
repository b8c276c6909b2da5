// Bad model files: each gives a heed::Error that says what is wrong.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/translator.h"
#include "tests/test_util.h"

namespace heed {
namespace {

std::vector<uint8_t> Good() {
  return test::ReadBytes(test::Fixture("tiny_postnorm.heed"));
}

bool Contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

TEST_CASE("a good file loads from a path and from bytes alike") {
  const Translator a =
      Translator::FromFile(test::Fixture("tiny_postnorm.heed"));
  const Translator b = Translator::FromBytes(Good());
  CHECK(a.parameters() == b.parameters());
  CHECK(a.parameters() > 0);
  CHECK(a.file_size() == Good().size());
  CHECK(a.languages() == std::vector<std::string>{"de", "en"});
}

TEST_CASE("missing and unreadable files") {
  CHECK_THROWS_WITH_AS(Translator::FromFile("/nonexistent/model.heed"),
                       doctest::Contains("cannot open"), Error);
  CHECK_THROWS_WITH_AS(Translator::FromFile("/"),
                       doctest::Contains("not a regular file"), Error);
  CHECK(Contains(test::LoadError({}), "too short"));
}

TEST_CASE("truncated files") {
  const std::vector<uint8_t> good = Good();
  for (size_t keep : {size_t{1}, size_t{7}, size_t{8}, size_t{100},
                      good.size() / 2, good.size() - 1}) {
    INFO("kept ", keep, " bytes");
    const std::string msg = test::LoadError(
        std::vector<uint8_t>(good.begin(), good.begin() + keep));
    CHECK(!msg.empty());
  }
}

TEST_CASE("a header length that lies") {
  std::vector<uint8_t> bytes = Good();
  for (int i = 0; i < 8; ++i) bytes[i] = 0xFF;
  CHECK(Contains(test::LoadError(bytes), "header length"));
  bytes = Good();
  bytes[0] = 1;  // a one-byte header
  for (int i = 1; i < 8; ++i) bytes[i] = 0;
  CHECK(Contains(test::LoadError(bytes), "header length"));
  std::vector<uint8_t> text(200, 'x');
  text[0] = 100;
  for (int i = 1; i < 8; ++i) text[i] = 0;
  CHECK(Contains(test::LoadError(text), "not valid JSON"));
}

// An edit of the header that sets one field of the config it carries.
std::function<void(nlohmann::json&)> SetConfig(const char* key,
                                               nlohmann::json value) {
  return [key, value](nlohmann::json& h) {
    auto c =
        nlohmann::json::parse(h["__metadata__"]["config"].get<std::string>());
    c[key] = value;
    h["__metadata__"]["config"] = c.dump();
  };
}

TEST_CASE("header entries that lie about offsets, shapes and dtypes") {
  struct Case {
    const char* what;
    std::function<void(nlohmann::json&)> edit;
    const char* message;
  };
  const Case cases[] = {
      {"offsets past the end",
       [](nlohmann::json& h) {
         h["encoder.embed_tokens.weight"]["data_offsets"][1] = 1u << 30;
       },
       "lie outside"},
      {"begin after end",
       [](nlohmann::json& h) {
         auto& o = h["encoder.embed_tokens.weight"]["data_offsets"];
         std::swap(o[0], o[1]);
       },
       "lie outside"},
      {"shape and size disagree",
       [](nlohmann::json& h) {
         h["encoder.embed_tokens.weight"]["shape"][0] = 3;
       },
       "its shape needs"},
      {"wrong shape for the config",
       [](nlohmann::json& h) {
         auto& t = h["encoder.layers.0.fc1.bias"];
         t["shape"] = {8, 8};
       },
       "has shape [8, 8], expected [64]"},
      {"unknown dtype",
       [](nlohmann::json& h) {
         h["encoder.layers.0.fc1.bias"]["dtype"] = "Q4";
       },
       "unsupported dtype"},
      {"I8 weights without support",
       [](nlohmann::json& h) {
         auto& t = h["encoder.layers.0.fc1.bias"];
         t["dtype"] = "I8";
         t["data_offsets"][1] = t["data_offsets"][0].get<size_t>() + 64;
       },
       "reads F32, F16 and (matrices) I8"},
      {"negative shape",
       [](nlohmann::json& h) {
         h["encoder.layers.0.fc1.bias"]["shape"][0] = -64;
       },
       "non-size"},
      {"huge shape",
       [](nlohmann::json& h) {
         h["encoder.layers.0.fc1.bias"]["shape"] = {1u << 31, 1u << 31, 4};
       },
       "too large"},
      {"overlapping tensors",
       [](nlohmann::json& h) {
         h["encoder.layers.0.fc1.bias"]["data_offsets"] =
             h["encoder.layers.0.fc2.bias"]["data_offsets"];
         h["encoder.layers.0.fc1.bias"]["shape"] = {32};
       },
       "overlap"},
      {"missing tensor",
       [](nlohmann::json& h) {
         h.erase("decoder.layers.1.encoder_attn.k_proj.bias");
       },
       "missing tensor 'decoder.layers.1.encoder_attn.k_proj.bias'"},
      {"missing tokenizer",
       [](nlohmann::json& h) { h.erase("tokenizer.source"); },
       "tokenizer.source"},
      {"entry without fields",
       [](nlohmann::json& h) { h["encoder.layers.0.fc1.bias"] = 5; },
       "needs dtype"},
      {"unsupported version",
       [](nlohmann::json& h) { h["__metadata__"]["format_version"] = "99"; },
       "format version 99 is not supported"},
      {"no version",
       [](nlohmann::json& h) { h["__metadata__"].erase("format_version"); },
       "no format_version"},
      {"config not JSON",
       [](nlohmann::json& h) { h["__metadata__"]["config"] = "{"; },
       "model config: not valid JSON"},
      {"config with impossible sizes", SetConfig("heads", 5),
       "not a multiple of heads"},
      {"config with a wrong type", SetConfig("pre_norm", "yes"),
       "'pre_norm' has the wrong type"},
      {"an unknown position layout", SetConfig("positions", "learned"),
       "positions must be interleaved or halves, not 'learned'"},
      {"an unknown decoder start", SetConfig("decoder_start", "eos"),
       "decoder_start must be bos or zeros, not 'eos'"},
      {"metadata not strings",
       [](nlohmann::json& h) { h["__metadata__"]["config"] = 7; },
       "is not a string"},
      {"a config size past 32 bits (wasm32 would wrap it)",
       SetConfig("d_model", (uint64_t{1} << 32) + 32),
       "'d_model' = 4294967328 is outside"},
      {"an empty tensor with a dimension past 32 bits",
       [](nlohmann::json& h) {
         h["extra.empty"] = {{"dtype", "F32"},
                             {"shape", {0, (uint64_t{1} << 32) + 5}},
                             {"data_offsets", {0, 0}}};
       },
       "too large"},
      {"another format",
       [](nlohmann::json& h) { h["__metadata__"]["format"] = "pt"; },
       "format 'pt' in the metadata is not heed's"},
  };
  for (const Case& c : cases) {
    INFO(c.what);
    test::SplitFile f = test::Split(Good());
    c.edit(f.header);
    const std::string msg = test::LoadError(test::Join(f));
    INFO("message: ", msg);
    CHECK(Contains(msg, c.message));
  }
}

TEST_CASE("a header that repeats a key is refused") {
  test::SplitFile f = test::Split(Good());
  std::string header = f.header.dump();
  const std::string meta = "\"__metadata__\":{";
  header.insert(header.find(meta) + meta.size(),
                "\"format\":\"heed\",\"format\":\"heed\",");
  std::vector<uint8_t> bytes(8);
  for (int i = 0; i < 8; ++i) bytes[i] = (header.size() >> (8 * i)) & 0xFF;
  bytes.insert(bytes.end(), header.begin(), header.end());
  bytes.insert(bytes.end(), f.data.begin(), f.data.end());
  CHECK(Contains(test::LoadError(bytes), "repeats the key 'format'"));
}

// A config that contradicts the file's tensors or its tokenizer is
// refused, naming what it contradicts.
TEST_CASE("a config that lies about the file is refused") {
  const auto edit_config = [](const std::function<void(nlohmann::json&)>& e) {
    test::SplitFile f = test::Split(Good());
    auto& meta = f.header["__metadata__"];
    nlohmann::json config =
        nlohmann::json::parse(meta["config"].get<std::string>());
    e(config);
    meta["config"] = config.dump();
    return test::LoadError(test::Join(f));
  };
  CHECK(Contains(edit_config([](nlohmann::json& c) {
                   c["decoder_layers"] = c["decoder_layers"].get<int>() - 1;
                 }),
                 "is not used by the model's config"));
  CHECK(Contains(edit_config([](nlohmann::json& c) {
                   c["encoder_layers"] = c["encoder_layers"].get<int>() - 1;
                 }),
                 "is not used by the model's config"));
  CHECK(Contains(edit_config([](nlohmann::json& c) { c["eos_id"] = 3; }),
                 "config eos_id 3 is not the tokenizer's (2)"));
  CHECK(Contains(
      edit_config([](nlohmann::json& c) { c["target_tags"]["de"] = "<unk>"; }),
      "is not an ordinary source piece"));
  // A key twice inside the config's own JSON.
  test::SplitFile f = test::Split(Good());
  std::string config = f.header["__metadata__"]["config"].get<std::string>();
  config.insert(1, "\"heads\":4,");
  f.header["__metadata__"]["config"] = config;
  CHECK(Contains(test::LoadError(test::Join(f)), "repeats the key 'heads'"));
}

TEST_CASE("empty tensors overlap nothing, whatever their names") {
  for (const char* name : {"aaa.empty", "zzz.empty"}) {
    INFO(name);
    test::SplitFile f = test::Split(Good());
    f.header[name] = {
        {"dtype", "F32"}, {"shape", {0}}, {"data_offsets", {0, 0}}};
    // Not an overlap: the file is refused only because its config does not
    // use the tensor.
    const std::string error = test::LoadError(test::Join(f));
    CHECK(Contains(error, std::string("tensor '") + name + "' is not used"));
    CHECK_FALSE(Contains(error, "overlap"));
  }
}

TEST_CASE("a tokenizer tensor that is not a SentencePiece model") {
  test::SplitFile f = test::Split(Good());
  const auto& o = f.header["tokenizer.source"]["data_offsets"];
  for (size_t i = o[0].get<size_t>(); i < o[1].get<size_t>(); ++i) {
    f.data[i] = static_cast<uint8_t>(i * 131);
  }
  CHECK(Contains(test::LoadError(test::Join(f)), "not a SentencePiece model"));
}

TEST_CASE("non-finite weights are refused at load") {
  for (const float bad : {NAN, INFINITY, -INFINITY}) {
    test::SplitFile f = test::Split(Good());
    const auto& o = f.header["decoder.layers.1.fc1.weight"]["data_offsets"];
    REQUIRE(f.header["decoder.layers.1.fc1.weight"]["dtype"] == "F32");
    std::memcpy(&f.data[o[0].get<size_t>() + 3 * sizeof(float)], &bad,
                sizeof(float));
    const std::string msg = test::LoadError(test::Join(f));
    INFO("message: ", msg);
    CHECK(Contains(msg,
                   "'decoder.layers.1.fc1.weight' holds a "
                   "non-finite value"));
    CHECK(Contains(msg, "element 3"));
  }
}

TEST_CASE("random bytes never crash the loader") {
  uint32_t state = 12345;
  const std::vector<uint8_t> good = Good();
  int usable = 0, rejected = 0;
  for (int round = 0; round < 200; ++round) {
    std::vector<uint8_t> bytes = good;
    // Flip a few bytes in the header, where the structure lives.
    for (int k = 0; k < 4; ++k) {
      state = state * 1664525u + 1013904223u;
      bytes[8 + state % 2000] ^= static_cast<uint8_t>(state >> 24);
    }
    try {
      const Translator t = Translator::FromBytes(bytes);
      TranslateOptions o;
      o.to = "de";
      o.beam_size = 2;
      t.Translate("A dog.", o);  // may throw Error, must not crash
      ++usable;
    } catch (const Error& e) {
      CHECK(std::string(e.what()).size() > 10);
      ++rejected;
    }
  }
  CHECK(usable + rejected == 200);
  CHECK(rejected > 0);
}

}  // namespace
}  // namespace heed
