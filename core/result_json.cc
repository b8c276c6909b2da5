#include "core/result_json.h"

#include <array>
#include <cstddef>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/model/run_options.h"

namespace heed {
namespace {

// A JSON string; invalid UTF-8 (never in a model's pieces) is replaced.
void String(std::ostream& out, const std::string& s) {
  out << nlohmann::json(s).dump(-1, ' ', false,
                                nlohmann::json::error_handler_t::replace);
}

// The shortest decimal that reads back as v (JSON has no NaN: null).
void Number(std::ostream& out, float v) {
  if (v != v) {  // NaN
    out << "null";
    return;
  }
  std::array<char, 32> buf;
  const char* end =
      nlohmann::detail::to_chars(buf.data(), buf.data() + buf.size(), v);
  out.write(buf.data(), end - buf.data());
}

void Floats(std::ostream& out, const float* v, size_t n) {
  out << '[';
  for (size_t i = 0; i < n; ++i) {
    if (i) out << ',';
    Number(out, v[i]);
  }
  out << ']';
}

void Floats(std::ostream& out, const std::vector<float>& v) {
  Floats(out, v.data(), v.size());
}

void Strings(std::ostream& out, const std::vector<std::string>& v) {
  out << '[';
  for (size_t i = 0; i < v.size(); ++i) {
    if (i) out << ',';
    String(out, v[i]);
  }
  out << ']';
}

// A flat (rows, cols) matrix as [row][col] nested arrays.
void Rows(std::ostream& out, const float* v, size_t rows, size_t cols) {
  out << '[';
  for (size_t r = 0; r < rows; ++r) {
    if (r) out << ',';
    Floats(out, v + r * cols, cols);
  }
  out << ']';
}

// A flat (outer, rows, cols) tensor as [outer][row][col].
void Grid(std::ostream& out, const float* v, size_t outer, size_t rows,
          size_t cols) {
  out << '[';
  for (size_t o = 0; o < outer; ++o) {
    if (o) out << ',';
    Rows(out, v + o * rows * cols, rows, cols);
  }
  out << ']';
}

// A flat (layers, heads, rows, cols) tensor as [layer][head][row][col].
void Maps(std::ostream& out, const std::vector<float>& v, size_t layers,
          size_t heads, size_t rows, size_t cols) {
  out << '[';
  for (size_t l = 0; l < layers; ++l) {
    if (l) out << ',';
    Grid(out, v.data() + l * heads * rows * cols, heads, rows, cols);
  }
  out << ']';
}

// With contributions: per head, ‖Σ_h‖ per layer, and the decoder's
// sublayer norms (docs/attention.md).
void Contributions(std::ostream& out, const Attention& a) {
  const size_t S = a.source, T = a.target;
  out << "{\"encoder\":";
  Maps(out, a.encoder_contributions, a.encoder_layers, a.heads, S, S);
  out << ",\"decoder\":";
  Maps(out, a.decoder_contributions, a.decoder_layers, a.heads, T, T);
  out << ",\"cross\":";
  Maps(out, a.cross_contributions, a.decoder_layers, a.heads, T, S);
  out << ",\"sublayerNorms\":";
  Grid(out, a.sublayer_norms.data(), a.decoder_layers, T, 4);
  out << ",\"layer\":{\"encoder\":";
  Grid(out, a.encoder_layer_contributions.data(), a.encoder_layers, S, S);
  out << ",\"decoder\":";
  Grid(out, a.decoder_layer_contributions.data(), a.decoder_layers, T, T);
  out << ",\"cross\":";
  Grid(out, a.cross_layer_contributions.data(), a.decoder_layers, T, S);
  out << "}}";
}

void QueryKey(std::ostream& out, const Attention& a) {
  const size_t dh = a.head_dim;
  out << "{\"kind\":";
  String(out, KindName(a.query_key->kind));
  out << ",\"layer\":" << a.query_key->layer
      << ",\"head\":" << a.query_key->head << ",\"queries\":";
  Rows(out, a.queries.data(), a.queries.size() / dh, dh);
  out << ",\"keys\":";
  Rows(out, a.keys.data(), a.keys.size() / dh, dh);
  out << '}';
}

// [layer][head] {confidence, previous, same, next, rare, boundary,
// distance, rows, role}.
void Roles(std::ostream& out, const std::vector<HeadRole>& roles,
           size_t heads) {
  out << '[';
  for (size_t k = 0; k < roles.size(); ++k) {
    const HeadRole& r = roles[k];
    out << (k % heads == 0 ? (k ? "],[" : "[") : ",");
    out << '{';
    for (const HeadRoleField& f : kHeadRoleFields) {
      if (&f != kHeadRoleFields) out << ',';
      String(out, f.name);
      out << ':';
      Number(out, float(r.*f.value));
    }
    out << ",\"rows\":" << r.rows << ",\"role\":";
    String(out, RoleName(r));
    out << '}';
  }
  out << (roles.empty() ? "]" : "]]");
}

}  // namespace

void WriteHeadRolesJson(const HeadRoles& roles, std::ostream& out) {
  out << "{\"encoder\":";
  Roles(out, roles.encoder, roles.heads);
  out << ",\"decoder\":";
  Roles(out, roles.decoder, roles.heads);
  out << ",\"cross\":";
  Roles(out, roles.cross, roles.heads);
  out << '}';
}

namespace {

void AttentionMaps(std::ostream& out, const Attention& a) {
  const size_t S = a.source, T = a.target;
  out << "{\"encoder\":";
  Maps(out, a.encoder, a.encoder_layers, a.heads, S, S);
  out << ",\"decoder\":";
  Maps(out, a.decoder, a.decoder_layers, a.heads, T, T);
  out << ",\"cross\":";
  Maps(out, a.cross, a.decoder_layers, a.heads, T, S);
  out << ",\"rollout\":";  // (layers, S, S)
  Grid(out, a.rollout.data(), a.encoder_layers, S, S);
  out << ",\"roles\":";
  WriteHeadRolesJson(a.roles, out);
  if (!a.encoder_contributions.empty()) {
    out << ",\"contributions\":";
    Contributions(out, a);
  }
  if (!a.alti_encoder.empty()) {  // (layers, S, S) and (layers, T, S + T)
    out << ",\"alti\":{\"encoder\":";
    Grid(out, a.alti_encoder.data(), a.encoder_layers, S, S);
    out << ",\"decoder\":";
    Grid(out, a.alti.data(), a.alti.empty() ? 0 : a.decoder_layers, T, S + T);
    out << '}';
  }
  if (a.query_key) {
    out << ",\"queryKey\":";
    QueryKey(out, a);
  }
  out << '}';
}

// {"top": [layer][step][k] {piece, probability}, "tokenProbabilities":
// [layer][step]}.
void Lens(std::ostream& out, const LogitLens& lens) {
  out << "{\"top\":[";
  for (size_t l = 0; l < lens.layers; ++l) {
    out << (l ? ",[" : "[");
    for (size_t i = 0; i < lens.steps; ++i) {
      out << (i ? ",[" : "[");
      for (size_t j = 0; j < lens.k; ++j) {
        const Alternative& a = lens.top[(l * lens.steps + i) * lens.k + j];
        out << (j ? ",{\"piece\":" : "{\"piece\":");
        String(out, a.piece);
        out << ",\"probability\":";
        Number(out, a.probability);
        out << '}';
      }
      out << ']';
    }
    out << ']';
  }
  out << "],\"tokenProbabilities\":";
  Rows(out, lens.token_probs.data(), lens.layers, lens.steps);
  out << '}';
}

void Sentence(std::ostream& out, const SentenceResult& s) {
  out << "{\"source\":";
  String(out, s.source);
  out << ",\"sourcePieces\":";
  Strings(out, s.source_pieces);
  out << ",\"targetPieces\":";
  Strings(out, s.best.pieces);
  out << ",\"text\":";
  String(out, s.best.text);
  out << ",\"score\":";
  Number(out, s.best.score);
  out << ",\"logProb\":";
  Number(out, s.best.log_prob);
  out << ",\"tokenProbabilities\":";
  Floats(out, s.best.token_probs);
  out << ",\"entropies\":";
  Floats(out, s.best.entropies);
  out << ",\"attention\":";
  AttentionMaps(out, s.attention);
  if (s.lens.k > 0) {
    out << ",\"logitLens\":";
    Lens(out, s.lens);
  }
  if (!s.erasure_mode.empty()) {  // (T, S)
    out << ",\"erasure\":{\"mode\":";
    String(out, s.erasure_mode);
    out << ",\"effect\":";
    const size_t S = s.source_ids.size();
    Rows(out, s.erasure.data(), S ? s.erasure.size() / S : 0, S);
    out << '}';
  }
  out << '}';
}

}  // namespace

void WriteResultJson(const Result& r, std::ostream& out) {
  out << "{\"text\":";
  String(out, r.text);
  out << ",\"sentences\":[";
  for (size_t i = 0; i < r.sentences.size(); ++i) {
    if (i) out << ',';
    Sentence(out, r.sentences[i]);
  }
  out << "]}";
}

}  // namespace heed
