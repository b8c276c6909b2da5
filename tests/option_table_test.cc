// The options table: every range is enforced at both ends, the defaults
// lie inside it, names are unique, and setting by number follows it.
#include <cmath>
#include <set>
#include <string>

#include <doctest/doctest.h>
#include "core/error.h"
#include "core/option_table.h"
#include "core/translator.h"

namespace heed {
namespace {

// The smallest step past a range's end for this kind of option.
double Step(const OptionSpec& s) {
  return s.kind == OptionKind::kReal ? 1e-3 : 1;
}

TEST_CASE("every option's range is checked at both ends, naming it") {
  const TranslateOptions defaults;
  size_t checked = 0;
  for (const OptionSpec& s : OptionTable()) {
    if (s.kind != OptionKind::kCount && s.kind != OptionKind::kReal) continue;
    CAPTURE(s.field);
    CHECK_NOTHROW(CheckOptionRanges(defaults));
    const double lo = s.above_min ? s.min + Step(s) : s.min;
    for (double v : {lo, s.max}) {
      TranslateOptions o;
      o.beam_size = 64;  // so that n-best at its ends fits the beam
      SetOptionNumber(s, v, &o);
      CHECK(OptionValue(s, o) == doctest::Approx(v));
      CHECK_NOTHROW(CheckOptionRanges(o));
    }
    for (double v : {s.above_min ? s.min : s.min - Step(s), s.max + Step(s)}) {
      if (v < 0 && s.kind == OptionKind::kCount) continue;  // unsigned field
      TranslateOptions o;
      if (s.kind == OptionKind::kCount) {
        o.*s.count = static_cast<size_t>(v);
      } else {
        o.*s.real = static_cast<float>(v);
      }
      CHECK_THROWS_WITH_AS(CheckOptionRanges(o), doctest::Contains(s.field),
                           Error);
      TranslateOptions p;
      CHECK_THROWS_WITH_AS(SetOptionNumber(s, v, &p),
                           doctest::Contains(s.range), Error);
    }
    ++checked;
  }
  CHECK(checked >= 12);
}

TEST_CASE("a count must be whole, a real finite") {
  TranslateOptions o;
  CHECK_THROWS_AS(SetOptionNumber(*FindOptionByJs("beam"), 2.5, &o), Error);
  CHECK_THROWS_AS(SetOptionNumber(*FindOptionByJs("lengthPenalty"), NAN, &o),
                  Error);
  o.length_penalty = INFINITY;
  CHECK_THROWS_WITH_AS(CheckOptionRanges(o),
                       doctest::Contains("length_penalty"), Error);
  TranslateOptions n;
  n.beam_size = 2;
  n.nbest = 3;  // inside its own range, outside the beam: the search's check
  CHECK_NOTHROW(CheckOptionRanges(n));
  CHECK_THROWS_WITH_AS(Translator::CheckOptions(n), doctest::Contains("n-best"),
                       Error);
}

TEST_CASE("names are unique and each kind has its field") {
  std::set<std::string> fields, js, flags;
  for (const OptionSpec& s : OptionTable()) {
    CHECK(fields.insert(s.field).second);
    if (s.js != nullptr) CHECK(js.insert(s.js).second);
    if (s.flag != nullptr) CHECK(flags.insert(s.flag).second);
    if (s.flag != nullptr) CHECK(FindOptionByFlag(s.flag) == &s);
    if (s.js != nullptr) CHECK(FindOptionByJs(s.js) == &s);
    const bool has[] = {s.count != nullptr, s.real != nullptr, s.on != nullptr,
                        s.text != nullptr};
    for (int k = 0; k < 4; ++k) {
      CHECK(has[k] == (k == static_cast<int>(s.kind)));
    }
  }
  CHECK(FindOptionByJs("noSuchOption") == nullptr);
  CHECK(FindOptionByFlag("--no-such-flag") == nullptr);
}

}  // namespace
}  // namespace heed
