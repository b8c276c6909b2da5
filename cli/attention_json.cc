#include "cli/attention_json.h"

#include <cstddef>
#include <vector>

namespace heed::cli {
namespace {

// [layer][head][row][col] nested arrays from a flat (L, H, R, C) tensor.
nlohmann::json Nested(const std::vector<float>& v, size_t layers, size_t heads,
                      size_t rows, size_t cols) {
  nlohmann::json out = nlohmann::json::array();
  for (size_t l = 0; l < layers; ++l) {
    nlohmann::json layer = nlohmann::json::array();
    for (size_t h = 0; h < heads; ++h) {
      nlohmann::json head = nlohmann::json::array();
      for (size_t r = 0; r < rows; ++r) {
        const float* row = v.data() + ((l * heads + h) * rows + r) * cols;
        head.push_back(std::vector<float>(row, row + cols));
      }
      layer.push_back(std::move(head));
    }
    out.push_back(std::move(layer));
  }
  return out;
}

// {"top": [layer][step][k] {piece, probability}, "tokenProbabilities":
// [layer][step]} (docs/attention.md).
nlohmann::json LensJson(const heed::LogitLens& lens) {
  nlohmann::json top = nlohmann::json::array();
  nlohmann::json probs = nlohmann::json::array();
  for (size_t l = 0; l < lens.layers; ++l) {
    nlohmann::json steps = nlohmann::json::array();
    for (size_t i = 0; i < lens.steps; ++i) {
      nlohmann::json best = nlohmann::json::array();
      for (size_t j = 0; j < lens.k; ++j) {
        const heed::Alternative& a =
            lens.top[(l * lens.steps + i) * lens.k + j];
        best.push_back({{"piece", a.piece}, {"probability", a.probability}});
      }
      steps.push_back(std::move(best));
    }
    top.push_back(std::move(steps));
    probs.push_back(std::vector<float>(
        lens.token_probs.begin() + static_cast<std::ptrdiff_t>(l * lens.steps),
        lens.token_probs.begin() +
            static_cast<std::ptrdiff_t>((l + 1) * lens.steps)));
  }
  return {{"top", std::move(top)}, {"tokenProbabilities", std::move(probs)}};
}

}  // namespace

nlohmann::json AttentionJson(const Result& r) {
  nlohmann::json sentences = nlohmann::json::array();
  for (const heed::SentenceResult& s : r.sentences) {
    const heed::Attention& a = s.attention;
    // The schema of docs/attention.md, shared with the JS result and the
    // page's export.
    nlohmann::json maps = {
        {"encoder",
         Nested(a.encoder, a.encoder_layers, a.heads, a.source, a.source)},
        {"decoder",
         Nested(a.decoder, a.decoder_layers, a.heads, a.target, a.target)},
        {"cross",
         Nested(a.cross, a.decoder_layers, a.heads, a.target, a.source)},
        // (layers, S, S): nested as one "layer" of encoder_layers "heads"
        {"rollout",
         Nested(a.rollout, 1, a.encoder_layers, a.source, a.source)[0]}};
    if (!a.encoder_contributions.empty()) {
      maps["contributions"] = {
          {"encoder", Nested(a.encoder_contributions, a.encoder_layers, a.heads,
                             a.source, a.source)},
          {"decoder", Nested(a.decoder_contributions, a.decoder_layers, a.heads,
                             a.target, a.target)},
          {"cross", Nested(a.cross_contributions, a.decoder_layers, a.heads,
                           a.target, a.source)},
          // (layers, T, 4): nested as one "layer" of decoder_layers "heads"
          {"sublayerNorms",
           Nested(a.sublayer_norms, 1, a.decoder_layers, a.target, 4)[0]},
          // ‖Σ_h‖ per layer: (layers, rows, cols)
          {"layer",
           {{"encoder", Nested(a.encoder_layer_contributions, 1,
                               a.encoder_layers, a.source, a.source)[0]},
            {"decoder", Nested(a.decoder_layer_contributions, 1,
                               a.decoder_layers, a.target, a.target)[0]},
            {"cross", Nested(a.cross_layer_contributions, 1, a.decoder_layers,
                             a.target, a.source)[0]}}}};
    }
    if (a.query_key) {
      const size_t dh = a.head_dim;
      maps["queryKey"] = {
          {"kind", KindName(a.query_key->kind)},
          {"layer", a.query_key->layer},
          {"head", a.query_key->head},
          {"queries", Nested(a.queries, 1, 1, a.queries.size() / dh, dh)[0][0]},
          {"keys", Nested(a.keys, 1, 1, a.keys.size() / dh, dh)[0][0]}};
    }
    sentences.push_back({{"source", s.source},
                         {"sourcePieces", s.source_pieces},
                         {"targetPieces", s.best.pieces},
                         {"text", s.best.text},
                         {"score", s.best.score},
                         {"logProb", s.best.log_prob},
                         {"tokenProbabilities", s.best.token_probs},
                         {"entropies", s.best.entropies},
                         {"attention", std::move(maps)}});
    if (s.lens.k > 0) sentences.back()["logitLens"] = LensJson(s.lens);
  }
  return {{"text", r.text}, {"sentences", sentences}};
}

}  // namespace heed::cli
