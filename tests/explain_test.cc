// Explanations derived from attention, against hand-worked examples.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
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

// A tiny model's fixture (tests/reference/): the model, its inputs and
// PyTorch's contributions for them.
struct ContributionFixture {
  explicit ContributionFixture(const std::string& name)
      : gold(test::ReadJson(test::Fixture(name + "_contributions.json"))),
        inputs(test::ReadJson(test::Fixture(name + ".json"))),
        model(Model::Load(ModelFile::Open(test::Fixture(name + ".heed")))),
        sources(inputs["sources"].get<std::vector<std::vector<int>>>()) {}
  nlohmann::json gold;    // make_contributions.py's goldens, per sentence
  nlohmann::json inputs;  // make_fixtures.py's sources, texts, languages
  Model model;
  std::vector<std::vector<int>> sources;  // encoder inputs, per sentence
};

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
    const ContributionFixture fx(name);
    const nlohmann::json& gold = fx.gold;
    const nlohmann::json& g = fx.inputs;
    const Model& model = fx.model;
    const ModelConfig& c = model.config();
    RunOptions run;
    run.capture_value_norms = true;
    const auto& sources = fx.sources;
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
    const ContributionFixture fx(name);
    const nlohmann::json& gold = fx.gold;
    const Model& model = fx.model;
    const size_t L = model.config().decoder_layers;
    const auto& sources = fx.sources;
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
      REQUIRE(h.maps.norms.size() == L * T * 4);
      REQUIRE(T >= inputs.size());
      double worst = 0;
      for (size_t l = 0; l < L; ++l) {
        for (size_t i = 0; i < inputs.size(); ++i) {
          for (size_t k = 0; k < 4; ++k) {
            const double w = gold[b]["sublayer_norms"][l][i][k].get<double>();
            const double got = h.maps.norms[(l * T + i) * 4 + k];
            worst = std::max(worst, std::abs(got - w) / (1 + std::abs(w)));
          }
        }
      }
      CHECK(worst <= 1e-4);
      // ‖f_h(decoder input i)‖ of each self-attention head.
      REQUIRE(h.maps.values.size() == L * H * T);
      worst = 0;
      for (size_t lh = 0; lh < L * H; ++lh) {
        for (size_t i = 0; i < inputs.size(); ++i) {
          const double w = gold[b]["decoder"][lh / H][lh % H][i].get<double>();
          const double got = h.maps.values[lh * T + i];
          worst = std::max(worst, std::abs(got - w) / (1 + std::abs(w)));
        }
      }
      CHECK(worst <= 1e-4);
    }
  }
}

TEST_CASE("layer-summed contributions and query/key vectors match PyTorch") {
  for (const std::string name : {"tiny_postnorm", "tiny_prenorm"}) {
    INFO("model ", name);
    const ContributionFixture fx(name);
    const nlohmann::json& gold = fx.gold;
    const Model& model = fx.model;
    const ModelConfig& c = model.config();
    const size_t H = c.heads, dh = c.head_dim(), d = c.d_model;
    const auto& sources = fx.sources;
    RunOptions run;
    run.capture_attention = true;
    run.capture_value_norms = true;
    const EncoderOutput enc = model.Encode(sources, run);
    for (size_t b = 0; b < sources.size(); ++b) {
      INFO("sentence ", b);
      const auto& want = gold[b];
      const auto inputs = want["inputs"].get<std::vector<int>>();
      const size_t len = sources[b].size(), T = inputs.size();
      CHECK(test::MaxRelDiff(want["layer"]["encoder"],
                             enc.layer_contributions[b]) <= 1e-4);
      ForcedCaptures kept;
      model.ForcedLogProbs(enc, b, inputs, run, &kept);
      REQUIRE(kept.self_layer_contributions.size() == c.decoder_layers * T * T);
      REQUIRE(kept.cross_layer_contributions.size() ==
              c.decoder_layers * T * len);
      CHECK(test::MaxRelDiff(want["layer"]["decoder"],
                             kept.self_layer_contributions) <= 1e-4);
      CHECK(test::MaxRelDiff(want["layer"]["cross"],
                             kept.cross_layer_contributions) <= 1e-4);
      // Every head's queries and keys, one probe at a time: PyTorch's
      // (layers, rows, d) holds head h in columns [h·dh, (h+1)·dh).
      const char* kinds[3] = {"encoder", "decoder", "cross"};
      for (int kind = 0; kind < 3; ++kind) {
        const size_t layers = kind == 0 ? c.encoder_layers : c.decoder_layers;
        for (size_t l = 0; l < layers; ++l) {
          for (size_t h = 0; h < H; ++h) {
            RunOptions probe;
            probe.probe = {true, static_cast<AttentionKind>(kind), l, h};
            std::vector<float> q, k;
            if (kind == 0) {
              EncoderOutput e = model.Encode({sources[b]}, probe);
              q = std::move(e.queries[0]);
              k = std::move(e.keys[0]);
            } else {
              ForcedCaptures f;
              model.ForcedLogProbs(enc, b, inputs, probe, &f);
              q = std::move(f.queries);
              k = std::move(f.keys);
            }
            const auto& wq = want["queries"][kinds[kind]][l];
            const auto& wk = want["keys"][kinds[kind]][l];
            REQUIRE(q.size() == wq.size() * dh);
            REQUIRE(k.size() == wk.size() * dh);
            REQUIRE(wq[0].size() == d);
            double worst = 0;
            for (size_t i = 0; i < q.size(); ++i) {
              const double w = wq[i / dh][h * dh + i % dh].get<double>();
              worst = std::max(worst, std::abs(q[i] - w) / (1 + std::abs(w)));
            }
            for (size_t i = 0; i < k.size(); ++i) {
              const double w = wk[i / dh][h * dh + i % dh].get<double>();
              worst = std::max(worst, std::abs(k[i] - w) / (1 + std::abs(w)));
            }
            CHECK(worst <= 1e-4);
          }
        }
      }
      CHECK(enc.layer_contributions[b].size() == c.encoder_layers * len * len);
    }
  }
}

// The per-head contribution maps of one kind and layer, (heads, rows, cols).
const float* LayerOf(const std::vector<float>& maps, size_t layer, size_t heads,
                     size_t rows, size_t cols) {
  return maps.data() + layer * heads * rows * cols;
}

TEST_CASE("layer-summed contributions: the triangle inequality, one head") {
  const Translator t = Translator::FromFile(test::Fixture("tiny_prenorm.heed"));
  TranslateOptions o;
  o.to = "de";
  o.contributions = true;
  o.beam_size = 4;
  const Result r = t.Translate("Two men play soccer in the park.", o);
  const Attention& a = r.sentences.at(0).attention;
  const size_t H = a.heads, S = a.source, T = a.target;
  struct Kind {
    const std::vector<float>& heads;
    const std::vector<float>& summed;
    size_t layers, rows, cols;
  };
  const Kind kinds[3] = {
      {a.encoder_contributions, a.encoder_layer_contributions, a.encoder_layers,
       S, S},
      {a.decoder_contributions, a.decoder_layer_contributions, a.decoder_layers,
       T, T},
      {a.cross_contributions, a.cross_layer_contributions, a.decoder_layers, T,
       S}};
  for (const Kind& k : kinds) {
    REQUIRE(k.summed.size() == k.layers * k.rows * k.cols);
    // ‖Σ_h α f_h‖ ≤ Σ_h α ‖f_h‖, and heads do cancel somewhere.
    size_t cancelled = 0;
    for (size_t l = 0; l < k.layers; ++l) {
      const float* per_head = LayerOf(k.heads, l, H, k.rows, k.cols);
      for (size_t ij = 0; ij < k.rows * k.cols; ++ij) {
        double sum = 0;
        for (size_t h = 0; h < H; ++h)
          sum += per_head[h * k.rows * k.cols + ij];
        const double summed = k.summed[l * k.rows * k.cols + ij];
        CHECK(summed <= sum * (1 + 1e-5) + 1e-6);
        cancelled += summed < 0.99 * sum;
      }
    }
    CHECK(cancelled > 0);
  }
  // With every head of a layer but one masked, the layer's sum is that
  // head's own contribution.
  TranslateOptions one = o;
  for (size_t h = 1; h < H; ++h) {
    one.masked_heads.push_back({AttentionKind::kEncoder, 1, h});
    one.masked_heads.push_back({AttentionKind::kCross, 0, h});
  }
  const Result masked = t.Translate("Two men play soccer in the park.", one);
  const Attention& m = masked.sentences.at(0).attention;
  const size_t Tm = m.target;
  const float* enc_head0 = LayerOf(m.encoder_contributions, 1, H, S, S);
  for (size_t ij = 0; ij < S * S; ++ij) {
    CHECK(m.encoder_layer_contributions[S * S + ij] ==
          doctest::Approx(enc_head0[ij]).epsilon(1e-4));
  }
  // A masked head adds nothing, though it still attends.
  const float* enc_head1 = LayerOf(m.encoder_contributions, 1, H, S, S);
  CHECK(std::all_of(enc_head1 + S * S, enc_head1 + H * S * S,
                    [](float x) { return x == 0.0f; }));
  const float* cross_head0 = LayerOf(m.cross_contributions, 0, H, Tm, S);
  for (size_t ij = 0; ij < Tm * S; ++ij) {
    CHECK(m.cross_layer_contributions[ij] ==
          doctest::Approx(cross_head0[ij]).epsilon(1e-4).scale(1e-4));
  }
}

// softmax_j(q_i · k_j / √dh) over the keys row i may see.
std::vector<float> AttentionOf(const std::vector<float>& q,
                               const std::vector<float>& k, size_t dh,
                               bool causal) {
  const size_t rows = q.size() / dh, cols = k.size() / dh;
  std::vector<float> p(rows * cols, 0.0f);
  for (size_t i = 0; i < rows; ++i) {
    const size_t seen = causal ? i + 1 : cols;
    std::vector<double> s(seen);
    double top = -1e30, z = 0;
    for (size_t j = 0; j < seen; ++j) {
      for (size_t e = 0; e < dh; ++e)
        s[j] += double(q[i * dh + e]) * k[j * dh + e];
      s[j] /= std::sqrt(double(dh));
      top = std::max(top, s[j]);
    }
    for (size_t j = 0; j < seen; ++j) z += std::exp(s[j] - top);
    for (size_t j = 0; j < seen; ++j)
      p[i * cols + j] = std::exp(s[j] - top) / z;
  }
  return p;
}

TEST_CASE("query and key vectors give back their head's attention") {
  const Translator t =
      Translator::FromFile(test::Fixture("tiny_postnorm.heed"));
  const size_t H = t.config().heads;
  for (int kind = 0; kind < 3; ++kind) {
    INFO("kind ", kind);
    TranslateOptions o;
    o.to = "de";
    o.beam_size = 4;
    o.query_key = HeadRef{static_cast<AttentionKind>(kind), 1, H - 1};
    const Result r = t.Translate("A man rides a bike.", o);
    const Attention& a = r.sentences.at(0).attention;
    REQUIRE(a.query_key.has_value());
    CHECK(a.query_key->head == H - 1);
    CHECK(a.head_dim == t.config().head_dim());
    const size_t S = a.source, T = a.target;
    const std::vector<float>& maps = kind == 0   ? a.encoder
                                     : kind == 1 ? a.decoder
                                                 : a.cross;
    const size_t rows = kind == 0 ? S : T, cols = kind == 1 ? T : S;
    REQUIRE(a.queries.size() == rows * a.head_dim);
    REQUIRE(a.keys.size() == cols * a.head_dim);
    const std::vector<float> p =
        AttentionOf(a.queries, a.keys, a.head_dim, kind == 1);
    const float* want = maps.data() + (1 * H + H - 1) * rows * cols;
    for (size_t i = 0; i < rows * cols; ++i) {
      CHECK(p[i] == doctest::Approx(want[i]).epsilon(1e-4).scale(1e-4));
    }
  }
  // A head that does not exist: refused before any work, empty text too.
  TranslateOptions bad;
  bad.to = "de";
  bad.query_key = HeadRef{AttentionKind::kCross, 0, H};
  CHECK_THROWS_WITH_AS(t.Translate("", bad),
                       doctest::Contains("query/key head"), Error);
  bad.query_key = HeadRef{AttentionKind::kEncoder, 99, 0};
  CHECK_THROWS_AS(t.Translate("A dog.", bad), Error);
  bad.query_key.reset();
  CHECK(t.Translate("A dog.", bad).sentences.at(0).attention.queries.empty());
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
