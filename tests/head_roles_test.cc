// Head roles (core/explain/head_roles.h): a hand-worked example, merging,
// the role names, and the translator's roles against PyTorch's attention
// (tests/reference/make_roles.py).
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/explain/head_roles.h"
#include "core/translator.h"
#include "tests/test_util.h"

namespace heed {
namespace {

void CheckRole(const HeadRole& got, const nlohmann::json& want) {
  CHECK(got.confidence == doctest::Approx(want["confidence"]).epsilon(1e-4));
  CHECK(got.previous == doctest::Approx(want["previous"]));
  CHECK(got.same == doctest::Approx(want["same"]));
  CHECK(got.next == doctest::Approx(want["next"]));
  CHECK(got.rare == doctest::Approx(want["rare"]));
  CHECK(got.boundary == doctest::Approx(want["boundary"]));
  CHECK(got.distance == doctest::Approx(want["distance"]).epsilon(1e-4));
  CHECK(got.rows == want["rows"].get<double>());
}

void CheckRoles(const std::vector<HeadRole>& got, const nlohmann::json& want,
                size_t heads) {
  size_t want_size = 0;
  for (const auto& layer : want) want_size += layer.size();
  REQUIRE(got.size() == want_size);
  for (size_t k = 0; k < got.size(); ++k) {
    CheckRole(got[k], want[k / heads][k % heads]);
  }
}

TEST_CASE("head roles: a hand-worked sentence") {
  // One layer, one head; S = 3 (the last is EOS), T = 2.
  const std::vector<float> encoder = {0.1f, 0.2f, 0.7f,   // row 0: EOS
                                      0.6f, 0.3f, 0.1f,   // row 1: previous
                                      0.2f, 0.5f, 0.3f};  // row 2: previous
  const std::vector<float> decoder = {1.0f, 0.0f,         // row 0: left out
                                      0.4f, 0.6f};        // row 1: same
  const std::vector<float> cross = {0.8f, 0.1f, 0.1f,     // p = 0: same
                                    0.1f, 0.1f, 0.8f};    // p = 2: same, EOS
  SentenceAttention a{1,
                      1,
                      1,
                      3,
                      2,
                      &encoder,
                      &decoder,
                      &cross,
                      {-5.0f, -9.0f, INFINITY},
                      {INFINITY, -2.0f}};
  const HeadRoles r = ComputeHeadRoles(a);
  REQUIRE(r.encoder.size() == 1);
  const HeadRole& e = r.encoder[0];
  CHECK(e.rows == 3);
  CHECK(e.confidence == doctest::Approx((0.7 + 0.6 + 0.5) / 3));
  CHECK(e.previous == doctest::Approx(2.0 / 3));
  CHECK(e.same == 0);
  CHECK(e.rare == doctest::Approx(1.0 / 3));  // row 2 on token 1 (-9)
  CHECK(e.boundary == doctest::Approx(1.0 / 3));
  // Σ_j α_ij |j − i|: row 0 0.2 + 1.4, row 1 0.6 + 0.1, row 2 0.4 + 0.5.
  CHECK(e.distance == doctest::Approx((1.6 + 0.7 + 0.9) / 3));
  const HeadRole& d = r.decoder[0];
  CHECK(d.rows == 1);
  CHECK(d.same == 1);
  CHECK(d.rare == 1);  // input 1 is the only one that can be rare
  CHECK(d.distance == doctest::Approx(0.4));
  const HeadRole& c = r.cross[0];
  CHECK(c.same == 1);
  CHECK(c.boundary == doctest::Approx(0.5));
  CHECK(c.distance == doctest::Approx((0.1 + 0.2 + 0.2 + 0.1) / 2));
}

TEST_CASE("head roles: merged by rows; shapes and names checked") {
  HeadRoles one, two, total;
  one.heads = two.heads = 1;
  one.encoder = {HeadRole{1.0, 1.0, 0, 0, 0, 0, 2.0, 1}};
  two.encoder = {HeadRole{0.5, 0.0, 1, 0, 0, 0, 5.0, 3}};
  MergeHeadRoles(one, &total);
  MergeHeadRoles(two, &total);
  CHECK(total.encoder[0].rows == 4);
  CHECK(total.encoder[0].confidence == doctest::Approx(0.625));
  CHECK(total.encoder[0].previous == doctest::Approx(0.25));
  CHECK(total.encoder[0].same == doctest::Approx(0.75));
  CHECK(total.encoder[0].distance == doctest::Approx(4.25));
  HeadRoles other = two;
  other.encoder.push_back(two.encoder[0]);
  CHECK_THROWS_AS(MergeHeadRoles(other, &total), Error);
  CHECK(RoleName(HeadRole{0.9, 0.95, 0, 0, 0, 0, 1, 10}) == "previous token");
  CHECK(RoleName(HeadRole{0.9, 0.85, 0, 0, 0, 0, 1, 10}) ==
        "mostly previous token");
  CHECK(RoleName(HeadRole{0.9, 0.5, 0, 0, 0.4, 0.1, 1, 10}).empty());
  CHECK(RoleName(HeadRole{0.9, 0, 0, 0.1, 0.6, 0.3, 1, 10}) == "rare token");
  CHECK(RoleName(HeadRole{0.9, 0, 0, 0, 0.2, 0.7, 1, 10}) == "boundary");
}

void CheckAgainstPyTorch(const std::string& name) {
  const nlohmann::json gold = test::ReadJson(test::Fixture(name + ".json"));
  const nlohmann::json want =
      test::ReadJson(test::Fixture(name + "_roles.json"))["sentences"];
  const Translator t = Translator::FromFile(test::Fixture(name + ".heed"));
  for (size_t b = 0; b < want.size(); ++b) {
    CAPTURE(b);
    TranslateOptions o;
    o.attention = true;
    const Result r = test::TranslateFixture(t, gold, b, o);
    REQUIRE(r.sentences.size() == 1);
    REQUIRE(r.sentences[0].best.ids ==
            gold["greedy"][b].get<std::vector<int>>());
    const HeadRoles& roles = r.sentences[0].attention.roles;
    CheckRoles(roles.encoder, want[b]["encoder"], roles.heads);
    CheckRoles(roles.decoder, want[b]["decoder"], roles.heads);
    CheckRoles(roles.cross, want[b]["cross"], roles.heads);
  }
}

TEST_CASE("the translator's head roles match PyTorch's attention") {
  CheckAgainstPyTorch("tiny_postnorm");
  CheckAgainstPyTorch("tiny_prenorm");
}

}  // namespace
}  // namespace heed
