// Decoding and attention capture: invariants that hold for any model.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "core/decode/history.h"
#include "core/decode/repetition.h"
#include "core/decode/search.h"
#include "core/error.h"
#include "core/model/model.h"
#include "tests/test_util.h"

namespace heed {
namespace {

Model LoadFixture(const char* name) {
  return Model::Load(ModelFile::Open(test::Fixture(name)));
}

std::vector<std::vector<int>> Sources() {
  return test::ReadJson(test::Fixture("tiny_prenorm.json"))["sources"]
      .get<std::vector<std::vector<int>>>();
}

// Every row of a (blocks, rows, cols) tensor sums to 1 over cols.
void CheckRowsSumToOne(const std::vector<float>& p, size_t rows, size_t cols) {
  REQUIRE(p.size() % (rows * cols) == 0);
  for (size_t r = 0; r < p.size() / cols; ++r) {
    double sum = 0;
    for (size_t c = 0; c < cols; ++c) sum += p[r * cols + c];
    CHECK(sum == doctest::Approx(1.0).epsilon(1e-5));
  }
}

TEST_CASE("attention invariants: rows sum to 1, causal zeros, no padding") {
  const Model model = LoadFixture("tiny_prenorm.heed");
  const ModelConfig& c = model.config();
  RunOptions run;
  run.capture_attention = true;
  const EncoderOutput enc = model.Encode(Sources(), run);
  for (size_t b = 0; b < enc.batch; ++b) {
    // Only the len_b real positions carry probability, even though the
    // batch is padded to max_len.
    CheckRowsSumToOne(enc.attention[b], enc.lengths[b], enc.lengths[b]);
  }
  for (size_t beam : {1u, 3u}) {
    DecodingOptions o;
    o.beam_size = beam;
    const auto found = Search(model, enc, o, run);
    for (size_t b = 0; b < enc.batch; ++b) {
      const Hypothesis& h = found[b][0];
      const size_t T = h.tokens.size(), S = enc.lengths[b];
      CheckRowsSumToOne(h.maps.self, T, T);
      CheckRowsSumToOne(h.maps.cross, T, S);
      for (size_t lh = 0; lh < c.decoder_layers * c.heads; ++lh) {
        for (size_t i = 0; i < T; ++i) {
          for (size_t j = i + 1; j < T; ++j) {
            CHECK(h.maps.self[(lh * T + i) * T + j] == 0.0f);
          }
        }
      }
      REQUIRE(h.alternatives.size() == T);
      for (size_t i = 0; i < T; ++i) {
        REQUIRE(!h.alternatives[i].empty());
        for (size_t a = 1; a < h.alternatives[i].size(); ++a) {
          CHECK(h.alternatives[i][a - 1].log_prob >=
                h.alternatives[i][a].log_prob);
        }
      }
      if (beam == 1) {  // greedy takes the best alternative every time
        for (size_t i = 0; i < T; ++i) {
          CHECK(h.alternatives[i][0].token == h.tokens[i]);
        }
      }
    }
  }
}

TEST_CASE("the cached decoder equals the teacher-forced one, attention too") {
  for (const char* name : {"tiny_postnorm.heed", "tiny_prenorm.heed"}) {
    INFO("model ", name);
    const Model model = LoadFixture(name);
    RunOptions run;
    run.capture_attention = true;
    const EncoderOutput enc = model.Encode(Sources(), run);
    DecodingOptions o;
    o.beam_size = 4;
    const auto found = BeamSearch(model, enc, o, run);
    for (size_t b = 0; b < enc.batch; ++b) {
      const Hypothesis& h = found[b][0];
      std::vector<int> inputs = {model.config().bos_id};
      inputs.insert(inputs.end(), h.tokens.begin(), h.tokens.end() - 1);
      ForcedCaptures kept;
      const auto lp = model.ForcedLogProbs(enc, b, inputs, run, &kept);
      const std::vector<float>& self = kept.self_probs;
      const std::vector<float>& cross = kept.cross_probs;
      double total = 0;
      const size_t V = model.config().target_vocab;
      for (size_t i = 0; i < h.tokens.size(); ++i)
        total += lp[i * V + h.tokens[i]];
      CHECK(h.log_prob == doctest::Approx(total).epsilon(1e-4));
      // The beam reordered rows many times; the attention must still be
      // this hypothesis's own.
      CHECK(test::MaxAbsDiff(h.maps.self, self) <= 1e-5);
      CHECK(test::MaxAbsDiff(h.maps.cross, cross) <= 1e-5);
    }
  }
}

TEST_CASE("only the best hypothesis carries its steps' captures") {
  const Model model = LoadFixture("tiny_prenorm.heed");
  const ModelConfig& c = model.config();
  RunOptions run;
  run.capture_attention = true;
  run.capture_hidden = true;
  run.capture_sublayer_norms = true;
  run.capture_value_norms = true;
  const EncoderOutput enc = model.Encode(Sources(), run);
  DecodingOptions o;
  o.beam_size = 4;
  o.nbest = 3;
  o.logit_lens = 2;
  const auto found = Search(model, enc, o, run);
  const size_t L = c.decoder_layers, H = c.heads;
  for (size_t b = 0; b < enc.batch; ++b) {
    REQUIRE(found[b].size() == 3);
    const Hypothesis& best = found[b][0];
    const size_t T = best.tokens.size(), S = enc.lengths[b];
    CHECK(best.maps.self.size() == L * H * T * T);
    CHECK(best.maps.cross.size() == L * H * T * S);
    CHECK(best.maps.norms.size() == L * T * 4);
    CHECK(best.maps.values.size() == L * H * T);
    CHECK(best.lens.size() == L * T * 2);
    CHECK(best.alternatives.size() == T);
    for (size_t n = 1; n < 3; ++n) {
      const Hypothesis& h = found[b][n];
      CHECK(!h.tokens.empty());
      CHECK(h.maps.self.empty());
      CHECK(h.maps.cross.empty());
      CHECK(h.maps.norms.empty());
      CHECK(h.maps.values.empty());
      CHECK(h.lens.empty());
      CHECK(h.alternatives.empty());
    }
  }
}

TEST_CASE("the history frees the captures of branches no longer followed") {
  const Model model = LoadFixture("tiny_prenorm.heed");
  const ModelConfig& c = model.config();
  RunOptions run;
  run.capture_attention = true;
  run.capture_hidden = true;
  const EncoderOutput enc = model.Encode({Sources()[0]}, run);
  DecoderState state = model.StartDecoding(enc, {0, 0}, 4, run);
  DecodingOptions o;
  o.logit_lens = 1;
  History history(model, o, run);
  // Two steps of two rows: a tree root -> {a, b}, a -> {c}, b -> {d}.
  std::vector<int> tokens = {c.bos_id, c.bos_id};
  model.Step(state, tokens.data(), run);
  const int a = history.Add(-1, 5, -1.0f, state, 0);
  const int b = history.Add(-1, 6, -2.0f, state, 1);
  tokens = {5, 6};
  model.Step(state, tokens.data(), run);
  const int n_c = history.Add(a, 7, -3.0f, state, 0);
  const int d = history.Add(b, 8, -4.0f, state, 1);
  const size_t all = history.CapturedFloats();
  REQUIRE(all > 0);
  history.Prune({n_c});  // b's branch is dropped: b and d free theirs
  const size_t kept = history.CapturedFloats();
  CHECK(kept < all);
  CHECK(kept > 0);
  history.Prune({n_c});  // nothing more to free
  CHECK(history.CapturedFloats() == kept);
  // The dropped branch keeps its tokens and scores, without maps.
  const Hypothesis dropped = history.Backtrack(d, -4.0f, enc.lengths[0], false);
  CHECK(dropped.tokens == std::vector<int>{6, 8});
  CHECK(dropped.log_prob == -4.0f);
  // The followed one has every map, and hands its captures over.
  const Hypothesis h = history.Backtrack(n_c, -3.0f, enc.lengths[0], true);
  const size_t L = c.decoder_layers, H = c.heads, S = enc.lengths[0];
  CHECK(h.tokens == std::vector<int>{5, 7});
  CHECK(h.maps.self.size() == L * H * 2 * 2);
  CHECK(h.maps.cross.size() == L * H * 2 * S);
  CHECK(h.lens.size() == L * 2);
  CHECK(history.CapturedFloats() == 0);
}

TEST_CASE("token confidence equals the teacher-forced distribution") {
  for (const char* name : {"tiny_postnorm.heed", "tiny_prenorm.heed"}) {
    INFO("model ", name);
    const Model model = LoadFixture(name);
    const size_t V = model.config().target_vocab;
    const EncoderOutput enc = model.Encode(Sources(), {});
    for (size_t beam : {1, 4}) {
      DecodingOptions o;  // the default rule against repeated 3-grams is on
      o.beam_size = beam;
      o.nbest = beam;
      o.token_confidence = true;
      const auto found = Search(model, enc, o, {});
      for (size_t b = 0; b < enc.batch; ++b) {
        for (const Hypothesis& h : found[b]) {
          const size_t T = h.tokens.size();
          REQUIRE(h.token_probs.size() == T);
          REQUIRE(h.entropies.size() == T);
          std::vector<int> inputs = {model.config().bos_id};
          inputs.insert(inputs.end(), h.tokens.begin(), h.tokens.end() - 1);
          const auto lp = model.ForcedLogProbs(enc, b, inputs, {});
          double total = 0;
          for (size_t i = 0; i < T; ++i) {
            const float* row = &lp[i * V];
            double entropy = 0;
            for (size_t v = 0; v < V; ++v) entropy -= std::exp(row[v]) * row[v];
            CHECK(h.token_probs[i] ==
                  doctest::Approx(std::exp(row[h.tokens[i]])).epsilon(1e-4));
            CHECK(h.entropies[i] == doctest::Approx(entropy).epsilon(1e-4));
            CHECK(h.entropies[i] >= 0.0f);
            CHECK(h.entropies[i] <= std::log(double(V)) + 1e-4);
            total += std::log(h.token_probs[i]);
          }
          // Without a repetition penalty the score sums the same terms.
          CHECK(h.log_prob == doctest::Approx(total).epsilon(1e-4));
        }
      }
      o.token_confidence = false;
      CHECK(Search(model, enc, o, {})[0][0].token_probs.empty());
    }
  }
}

TEST_CASE("a forced prefix starts every hypothesis; the search goes on") {
  for (const char* name : {"tiny_postnorm.heed", "tiny_prenorm.heed"}) {
    INFO("model ", name);
    const Model model = LoadFixture(name);
    const size_t V = model.config().target_vocab;
    const int pad = model.config().pad_id;
    const EncoderOutput enc = model.Encode(Sources(), {});
    DecodingOptions o;
    o.no_repeat_ngram_size = 0;
    o.beam_size = 1;
    const auto free = Search(model, enc, o, {});
    o.forced_prefix = {};  // an empty prefix is no prefix
    CHECK(Search(model, enc, o, {})[0][0].tokens == free[0][0].tokens);
    // Tokens the model would not choose first.
    const std::vector<int> prefix = {free[0][0].tokens[0] == 7 ? 8 : 7, 11, 9};
    o.forced_prefix = prefix;
    for (size_t beam : {1, 4}) {
      o.beam_size = beam;
      o.nbest = beam;
      const auto found = Search(model, enc, o, {});
      for (size_t b = 0; b < enc.batch; ++b) {
        for (const Hypothesis& h : found[b]) {
          REQUIRE(h.tokens.size() > prefix.size());
          CHECK(std::equal(prefix.begin(), prefix.end(), h.tokens.begin()));
          std::vector<int> inputs = {model.config().bos_id};
          inputs.insert(inputs.end(), h.tokens.begin(), h.tokens.end() - 1);
          const auto lp = model.ForcedLogProbs(enc, b, inputs, {});
          double total = 0;
          for (size_t i = 0; i < h.tokens.size(); ++i) {
            total += lp[i * V + h.tokens[i]];
            // Greedy: after the prefix, each token is the step's argmax.
            if (beam == 1 && i >= prefix.size()) {
              std::vector<Candidate> best;
              TopK(&lp[i * V], V, 1, pad, &best);
              CHECK(best[0].token == h.tokens[i]);
            }
          }
          CHECK(h.log_prob == doctest::Approx(total).epsilon(1e-4));
        }
      }
    }
    // A prefix exactly as long as the shortest limit is that sentence's
    // whole output (an output that ran to the limit, forced again).
    size_t shortest = 1000;
    for (size_t b = 0; b < enc.batch; ++b) {
      shortest = std::min(shortest, MaxTargetLength(enc.lengths[b], o));
    }
    o.forced_prefix.assign(shortest, 7);
    for (size_t beam : {1, 4}) {
      o.beam_size = beam;
      o.nbest = 1;
      const auto full = Search(model, enc, o, {});
      for (size_t b = 0; b < enc.batch; ++b) {
        if (MaxTargetLength(enc.lengths[b], o) == shortest) {
          CHECK(full[b][0].tokens == o.forced_prefix);
        }
      }
    }
    o.forced_prefix.assign(shortest + 1, 7);
    CHECK_THROWS_WITH_AS(Search(model, enc, o, {}),
                         doctest::Contains("passes the length limit"), Error);
  }
}

// The fixture with only its first `layers` decoder layers: its output is
// the full model's logit lens at layer `layers` - 1.
Model Truncated(const char* name, size_t layers) {
  test::SplitFile f = test::Split(test::ReadBytes(test::Fixture(name)));
  auto& meta = f.header["__metadata__"];
  nlohmann::json config =
      nlohmann::json::parse(meta["config"].get<std::string>());
  config["decoder_layers"] = layers;
  meta["config"] = config.dump();
  // The layers cut off go too: a file may hold no tensor its config leaves
  // unused.
  for (size_t l = layers; l < 64; ++l) {
    const std::string prefix = "decoder.layers." + std::to_string(l) + ".";
    for (auto it = f.header.begin(); it != f.header.end();) {
      it = it.key().rfind(prefix, 0) == 0 ? f.header.erase(it) : std::next(it);
    }
  }
  return Model::Load(ModelFile::FromBytes(test::Join(f)));
}

TEST_CASE("the logit lens equals the output of the model cut after a layer") {
  for (const char* name : {"tiny_postnorm.heed", "tiny_prenorm.heed"}) {
    INFO("model ", name);
    const Model model = LoadFixture(name);
    const size_t V = model.config().target_vocab;
    const size_t L = model.config().decoder_layers;
    const size_t k = 4;
    RunOptions run;
    run.capture_hidden = true;
    const EncoderOutput enc = model.Encode(Sources(), run);
    for (size_t beam : {1, 3}) {
      DecodingOptions o;
      o.beam_size = beam;
      o.logit_lens = k;
      const auto found = Search(model, enc, o, run);
      for (size_t b = 0; b < enc.batch; ++b) {
        const Hypothesis& h = found[b][0];
        const size_t T = h.tokens.size();
        REQUIRE(h.lens.size() == L * T * k);
        REQUIRE(h.lens_token_probs.size() == L * T);
        std::vector<int> inputs = {model.config().bos_id};
        inputs.insert(inputs.end(), h.tokens.begin(), h.tokens.end() - 1);
        for (size_t l = 0; l < L; ++l) {
          const Model cut =
              l + 1 == L ? LoadFixture(name) : Truncated(name, l + 1);
          const EncoderOutput cut_enc = cut.Encode({Sources()[b]}, {});
          const auto lp = cut.ForcedLogProbs(cut_enc, 0, inputs, {});
          for (size_t i = 0; i < T; ++i) {
            const float* row = &lp[i * V];
            std::vector<Candidate> top;
            TopK(row, V, k, -1, &top);
            const Candidate* lens = &h.lens[(l * T + i) * k];
            for (size_t j = 0; j < k; ++j) {
              CHECK(lens[j].log_prob ==
                    doctest::Approx(top[j].log_prob).epsilon(1e-4));
            }
            CHECK(lens[0].token == top[0].token);
            CHECK(h.lens_token_probs[l * T + i] ==
                  doctest::Approx(std::exp(row[h.tokens[i]])).epsilon(1e-4));
          }
        }
      }
    }
    DecodingOptions o;
    o.logit_lens = 3;  // without hidden states captured: a clear error
    CHECK_THROWS_WITH_AS(Search(model, enc, o, {}),
                         doctest::Contains("no captured hidden states"), Error);
  }
}

TEST_CASE("TopK equals a stable sort: ties by index, the excluded left out") {
  std::mt19937 rng(5);
  std::uniform_int_distribution<int> level(-40, 3);  // many ties
  test::ForEachTarget([&](const char* target) {
    INFO("target ", target);
    for (size_t n : {1u, 7u, 40u, 1000u}) {
      std::vector<float> x(n);
      for (float& v : x) v = level(rng) * 0.25f;
      x[n / 3] = -std::numeric_limits<float>::infinity();
      for (size_t k : {1u, 2u, 8u, 50u}) {
        for (int exclude : {-1, 0, static_cast<int>(n) - 1}) {
          INFO("n ", n, " k ", k, " exclude ", exclude);
          std::vector<int> order;
          for (size_t i = 0; i < n; ++i) {
            if (static_cast<int>(i) != exclude) order.push_back(int(i));
          }
          std::stable_sort(order.begin(), order.end(),
                           [&](int a, int b) { return x[a] > x[b]; });
          order.resize(std::min(k, order.size()));
          std::vector<Candidate> top;
          TopK(x.data(), n, k, exclude, &top);
          REQUIRE(top.size() == order.size());
          for (size_t j = 0; j < top.size(); ++j) {
            CHECK(top[j].token == order[j]);
            CHECK(top[j].log_prob == x[order[j]]);
          }
        }
      }
    }
  });
}

TEST_CASE("beam 1 equals greedy; n-best is sorted; batching changes nothing") {
  const Model model = LoadFixture("tiny_prenorm.heed");
  const auto sources = Sources();
  const EncoderOutput enc = model.Encode(sources, {});
  DecodingOptions o;
  o.beam_size = 1;
  const auto greedy = GreedySearch(model, enc, o, {});
  const auto beam1 = BeamSearch(model, enc, o, {});
  for (size_t b = 0; b < enc.batch; ++b) {
    CHECK(beam1[b][0].tokens == greedy[b][0].tokens);
    CHECK(beam1[b][0].score == doctest::Approx(greedy[b][0].score));
  }
  o.beam_size = 5;
  o.nbest = 5;
  const auto beam = BeamSearch(model, enc, o, {});
  for (size_t b = 0; b < enc.batch; ++b) {
    REQUIRE(beam[b].size() == 5);
    for (size_t i = 1; i < beam[b].size(); ++i) {
      CHECK(beam[b][i - 1].score >= beam[b][i].score);
    }
    // Alone, without padding, the sentence encodes and decodes the same;
    // in the batch its rows past its length are 0.
    const EncoderOutput one = model.Encode({sources[b]}, {});
    const size_t d = model.config().d_model, S = enc.max_len;
    const size_t len = enc.lengths[b];
    const auto row = enc.memory.begin() + b * S * d;
    CHECK(std::equal(one.memory.begin(), one.memory.end(), row));
    CHECK(std::all_of(row + len * d, row + S * d,
                      [](float x) { return x == 0.0f; }));
    CHECK(std::equal(one.cross_k.begin(), one.cross_k.begin() + len * d,
                     enc.cross_k.begin() + b * S * d));  // first layer's
    const auto alone = BeamSearch(model, one, o, {});
    for (size_t i = 0; i < 5; ++i) {
      CHECK(alone[0][i].tokens == beam[b][i].tokens);
      CHECK(alone[0][i].score == beam[b][i].score);
    }
  }
}

TEST_CASE("head masks change the run only where they apply") {
  const Model model = LoadFixture("tiny_postnorm.heed");
  const ModelConfig& c = model.config();
  const auto sources = Sources();
  RunOptions all_off;
  for (auto& flags : all_off.head_mask.disabled) flags.clear();
  all_off.head_mask.disabled[0].assign(c.encoder_layers * c.heads, 0);
  for (size_t h = 0; h < c.heads; ++h) all_off.head_mask.disabled[0][h] = 1;
  const EncoderOutput plain = model.Encode(sources, {});
  const EncoderOutput masked = model.Encode(sources, all_off);
  CHECK(test::MaxAbsDiff(plain.memory, masked.memory) > 1e-3);
  // A mask of all zeros is the same as no mask.
  RunOptions zeros;
  zeros.head_mask.disabled[0].assign(c.encoder_layers * c.heads, 0);
  CHECK(test::MaxAbsDiff(plain.memory, model.Encode(sources, zeros).memory) ==
        0);
  RunOptions wrong;
  wrong.head_mask.disabled[2].assign(3, 1);
  CHECK_THROWS_AS(model.Encode(sources, wrong), Error);
}

TEST_CASE("equal probabilities give a deterministic, rule-given result") {
  // Zero embeddings make every logit 0: all tokens are equally likely. Ties
  // go to the earlier hypothesis and the lower id, and padding (0) is never
  // produced, so greedy repeats token 1 and beam search finishes one
  // hypothesis per step through EOS (2) from the first row.
  test::SplitFile f =
      test::Split(test::ReadBytes(test::Fixture("tiny_postnorm.heed")));
  const auto& e = f.header["encoder.embed_tokens.weight"]["data_offsets"];
  std::fill(f.data.begin() + e[0].get<size_t>(),
            f.data.begin() + e[1].get<size_t>(), 0);
  const Model model = Model::Load(ModelFile::FromBytes(test::Join(f)));
  const std::vector<std::vector<int>> src = {{5, 6, 7, 2}};
  const EncoderOutput enc = model.Encode(src, {});
  DecodingOptions o;
  o.no_repeat_ngram_size = 0;
  o.beam_size = 1;
  o.max_length_ratio = 1.0f;
  o.max_length_extra = 2;
  const auto greedy = GreedySearch(model, enc, o, {});
  CHECK(greedy[0][0].tokens == std::vector<int>(6, 1));
  o.beam_size = 4;
  o.nbest = 4;
  for (int run = 0; run < 2; ++run) {
    const auto beam = BeamSearch(model, enc, o, {});
    REQUIRE(beam[0].size() == 4);
    CHECK(beam[0][0].tokens == std::vector<int>{2});
    CHECK(beam[0][1].tokens == std::vector<int>{1, 2});
    CHECK(beam[0][2].tokens == std::vector<int>{1, 1, 2});
    CHECK(beam[0][3].tokens == std::vector<int>{1, 1, 1, 2});
    const double uniform = -std::log(double(model.config().target_vocab));
    CHECK(beam[0][1].log_prob == doctest::Approx(2 * uniform).epsilon(1e-5));
  }
}

// A model whose every logit is 0 (zero embeddings): greedy search repeats
// token 1 until its length limit, the loop the repetition rules prevent.
Model LoopingModel() {
  test::SplitFile f =
      test::Split(test::ReadBytes(test::Fixture("tiny_postnorm.heed")));
  const auto& e = f.header["encoder.embed_tokens.weight"]["data_offsets"];
  std::fill(f.data.begin() + e[0].get<size_t>(),
            f.data.begin() + e[1].get<size_t>(), 0);
  return Model::Load(ModelFile::FromBytes(test::Join(f)));
}

// True when some n-gram occurs twice in tokens.
bool RepeatsNgram(const std::vector<int>& tokens, size_t n) {
  for (size_t i = 0; i + n <= tokens.size(); ++i) {
    for (size_t j = i + 1; j + n <= tokens.size(); ++j) {
      if (std::equal(tokens.begin() + i, tokens.begin() + i + n,
                     tokens.begin() + j)) {
        return true;
      }
    }
  }
  return false;
}

TEST_CASE("repetition rules change exactly the tokens they name") {
  const std::vector<int> produced = {3, 4, 5, 3, 4};
  const float kInf = std::numeric_limits<float>::infinity();
  for (size_t n = 1; n <= 6; ++n) {
    std::vector<float> lp(8, -1.0f);
    DecodingOptions o;
    o.no_repeat_ngram_size = n;
    PenalizeRepeats(produced, o, lp.data(), lp.size());
    // Banned: what follows an earlier copy of the last n - 1 tokens.
    std::vector<float> want(8, -1.0f);
    if (n == 1) want[3] = want[4] = want[5] = -kInf;
    if (n == 2 || n == 3) want[5] = -kInf;  // after "4" and after "3 4"
    CHECK_MESSAGE(lp == want, "n = " << n);
  }
  // With any n, a token that ends the hypothesis twice may not come a
  // third time (n = 3 alone would allow it: "Abend Abend Abend").
  for (size_t n = 3; n <= 4; ++n) {
    std::vector<float> lp(8, -1.0f);
    DecodingOptions o;
    o.no_repeat_ngram_size = n;
    PenalizeRepeats({3, 6, 6}, o, lp.data(), lp.size());
    std::vector<float> want(8, -1.0f);
    want[6] = -kInf;
    CHECK_MESSAGE(lp == want, "n = " << n);
    lp.assign(8, -1.0f);
    PenalizeRepeats({6, 3, 6}, o, lp.data(), lp.size());
    CHECK(lp == std::vector<float>(8, -1.0f));
  }
  std::vector<float> lp = {-1.0f, -2.0f, -0.5f, -3.0f, -0.25f, -4.0f};
  DecodingOptions o;
  o.repetition_penalty = 2.0f;
  PenalizeRepeats({4, 1, 4}, o, lp.data(), lp.size());
  CHECK(lp == std::vector<float>{-1.0f, -4.0f, -0.5f, -3.0f, -0.5f, -4.0f});
  DecodingOptions none;
  none.no_repeat_ngram_size = 0;
  CHECK_FALSE(PenalizesRepeats(none));
}

TEST_CASE("a model that wants to loop does not, with the rules on") {
  const Model model = LoopingModel();
  const EncoderOutput enc = model.Encode({{5, 6, 7, 2}}, {});
  DecodingOptions o;
  o.no_repeat_ngram_size = 0;
  o.beam_size = 1;
  o.max_length_ratio = 4.0f;  // 26 tokens for this source
  CHECK(Search(model, enc, o, {})[0][0].tokens == std::vector<int>(26, 1));
  // Token 1 once, then the best token not banned: EOS (2).
  o.no_repeat_ngram_size = 1;
  CHECK(Search(model, enc, o, {})[0][0].tokens == std::vector<int>{1, 2});
  o.no_repeat_ngram_size = 2;
  CHECK(Search(model, enc, o, {})[0][0].tokens == std::vector<int>{1, 1, 2});
  o.no_repeat_ngram_size = 3;  // no 3-gram twice, and no token 3 in a row
  CHECK(Search(model, enc, o, {})[0][0].tokens == std::vector<int>{1, 1, 2});
  o.no_repeat_ngram_size = 0;
  o.repetition_penalty = 1.5f;
  CHECK(Search(model, enc, o, {})[0][0].tokens == std::vector<int>{1, 2});
  // Beam search keeps 4 looping rows alive; none may repeat a bigram.
  o.beam_size = 4;
  o.nbest = 4;
  o.repetition_penalty = 1.0f;
  o.no_repeat_ngram_size = 2;
  const auto beam = Search(model, enc, o, {});
  REQUIRE(beam[0].size() == 4);
  for (const Hypothesis& h : beam[0]) CHECK_FALSE(RepeatsNgram(h.tokens, 2));
}

// Whether a token occurs three times in a row.
bool HasTriple(const std::vector<int>& t) {
  for (size_t i = 2; i < t.size(); ++i) {
    if (t[i] == t[i - 1] && t[i] == t[i - 2]) return true;
  }
  return false;
}

TEST_CASE(
    "no n-gram repeats in any hypothesis; rules that never fire change "
    "nothing") {
  const Model model = LoadFixture("tiny_prenorm.heed");
  const EncoderOutput enc = model.Encode(Sources(), {});
  size_t compared = 0;
  for (size_t beam : {1, 3}) {
    DecodingOptions off;
    off.no_repeat_ngram_size = 0;
    off.beam_size = beam;
    off.nbest = beam;
    const auto plain = Search(model, enc, off, {});
    // Longer than any hypothesis: only the rule against a token three
    // times in a row can fire.
    DecodingOptions never = off;
    never.no_repeat_ngram_size = 1000;
    const auto same = Search(model, enc, never, {});
    DecodingOptions on = off;
    on.no_repeat_ngram_size = 2;
    const auto ruled = Search(model, enc, on, {});
    for (size_t b = 0; b < enc.batch; ++b) {
      REQUIRE(same[b].size() == plain[b].size());
      for (const Hypothesis& h : same[b]) CHECK_FALSE(HasTriple(h.tokens));
      // Greedy: where the plain path has no triple, nothing fired on it.
      if (beam == 1 && !HasTriple(plain[b][0].tokens)) {
        CHECK(same[b][0].tokens == plain[b][0].tokens);
        CHECK(same[b][0].score == plain[b][0].score);  // bit for bit
        ++compared;
      }
      for (const Hypothesis& h : ruled[b])
        CHECK_FALSE(RepeatsNgram(h.tokens, 2));
    }
  }
  CHECK(compared > 0);
}

// The ranges of every option are the translator's (option_table_test.cc);
// the search checks what it relies on itself.
TEST_CASE("decoding options are checked") {
  const Model model = LoadFixture("tiny_postnorm.heed");
  const EncoderOutput enc = model.Encode({{5, 2}}, {});
  DecodingOptions o;
  o.beam_size = 0;
  CHECK_THROWS_AS(Search(model, enc, o, {}), Error);
  o.beam_size = 2;
  o.nbest = 3;
  CHECK_THROWS_AS(Search(model, enc, o, {}), Error);
  o.nbest = 1;
  o.forced_prefix.assign(100001, 5);
  CHECK_THROWS_AS(Search(model, enc, o, {}), Error);
  o.forced_prefix.clear();
  o.max_length_ratio = 0.0f;
  o.max_length_extra = 0;  // still at least one token
  CHECK(Search(model, enc, o, {})[0][0].tokens.size() == 1);
  CHECK(Search(model, model.Encode({}, {}), o, {}).empty());
}

}  // namespace
}  // namespace heed
