// Helpers shared by the doctest suite.
#ifndef HEED_TESTS_TEST_UTIL_H_
#define HEED_TESTS_TEST_UTIL_H_

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <functional>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/translator.h"
#include "hwy/targets.h"

namespace heed::test {

inline std::string Fixture(const std::string& name) {
  return std::string(HEED_FIXTURE_DIR) + "/" + name;
}

inline std::vector<uint8_t> ReadBytes(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(f), {});
}

inline nlohmann::json ReadJson(const std::string& path) {
  std::ifstream f(path);
  return nlohmann::json::parse(f);
}

// Runs fn once per SIMD target this CPU supports and the build compiled,
// with dynamic dispatch forced to that target.
inline void ForEachTarget(const std::function<void(const char*)>& fn) {
  for (int64_t target : hwy::SupportedAndGeneratedTargets()) {
    hwy::SetSupportedTargetsForTest(target);
    fn(hwy::TargetName(target));
  }
  hwy::SetSupportedTargetsForTest(0);
}

// Sentence b of a make_fixtures.py gold file (its "texts" and "to"),
// translated greedily without the n-gram rule, as PyTorch searched it, with
// the other options `o` sets.
inline Result TranslateFixture(const Translator& t, const nlohmann::json& gold,
                               size_t b, TranslateOptions o) {
  o.no_repeat_ngram_size = 0;
  o.beam_size = 1;
  o.to = gold["to"][b].get<std::string>();
  return t.Translate(gold["texts"][b].get<std::string>(), o);
}

// A model file's header and data, to rewrite (for corrupt-file tests and toy
// models built from a fixture).
struct SplitFile {
  nlohmann::json header;
  std::vector<uint8_t> data;  // the bytes after the header
};

inline SplitFile Split(const std::vector<uint8_t>& file) {
  uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | file[i];
  SplitFile s;
  s.header = nlohmann::json::parse(file.begin() + 8, file.begin() + 8 + n);
  s.data.assign(file.begin() + 8 + n, file.end());
  return s;
}

inline std::vector<uint8_t> Join(const SplitFile& s) {
  std::string h = s.header.dump();
  while (h.size() % 8 != 0) h += ' ';
  std::vector<uint8_t> out(8 + h.size() + s.data.size());
  const uint64_t n = h.size();
  for (int i = 0; i < 8; ++i) out[i] = static_cast<uint8_t>(n >> (8 * i));
  std::memcpy(out.data() + 8, h.data(), h.size());
  if (!s.data.empty()) {
    std::memcpy(out.data() + 8 + h.size(), s.data.data(), s.data.size());
  }
  return out;
}

// The message of the heed::Error that loading `bytes` as a model throws
// ("" if none).
inline std::string LoadError(std::vector<uint8_t> bytes) {
  try {
    Translator::FromBytes(std::move(bytes));
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

// Max |a - b| over two float sequences of the same length.
inline double MaxAbsDiff(const std::vector<float>& a,
                         const std::vector<float>& b) {
  double m = 0;
  for (size_t i = 0; i < a.size() && i < b.size(); ++i) {
    const double d = std::abs(static_cast<double>(a[i]) - b[i]);
    if (d > m || d != d) m = d != d ? 1e30 : d;
  }
  return a.size() == b.size() ? m : 1e30;
}

// Flattens nested JSON arrays of numbers.
inline void Flatten(const nlohmann::json& j, std::vector<float>* out) {
  if (j.is_array()) {
    for (const auto& e : j) Flatten(e, out);
  } else {
    out->push_back(j.get<float>());
  }
}

inline std::vector<float> Flat(const nlohmann::json& j) {
  std::vector<float> out;
  Flatten(j, &out);
  return out;
}

// Max |got - want| over want's nested numbers, read in row-major order
// against got (1e30 if the counts differ).
inline double MaxAbsDiff(const nlohmann::json& want,
                         const std::vector<float>& got) {
  return MaxAbsDiff(Flat(want), got);
}

// Max |got - want| / (1 + |want|), likewise.
inline double MaxRelDiff(const nlohmann::json& want,
                         const std::vector<float>& got) {
  const std::vector<float> w = Flat(want);
  if (w.size() != got.size()) return 1e30;
  double m = 0;
  for (size_t i = 0; i < w.size(); ++i) {
    const double d = std::abs(static_cast<double>(got[i]) - w[i]);
    m = d != d ? 1e30 : std::max(m, d / (1 + std::abs(w[i])));
  }
  return m;
}

}  // namespace heed::test

#endif  // HEED_TESTS_TEST_UTIL_H_
