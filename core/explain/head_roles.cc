#include "core/explain/head_roles.h"

#include <cmath>

#include "core/error.h"

namespace heed {
namespace {

// One kind of attention: its maps and how its rows and columns relate.
struct Maps {
  const std::vector<float>* weights;  // (layers, heads, rows, cols)
  size_t layers, rows, cols;
  bool causal;                       // row i sees columns 0..i only
  bool diagonal;                     // p(i) scales rows onto columns
  size_t boundary;                   // the boundary token's column
  const std::vector<float>* rarity;  // (cols)
};

double Position(const Maps& m, size_t i) {
  if (!m.diagonal || m.rows < 2) return m.diagonal ? 0.0 : double(i);
  return double(i) * double(m.cols - 1) / double(m.rows - 1);
}

// The habits of head (l, h) over its rows.
HeadRole RoleOf(const Maps& m, size_t l, size_t h, size_t heads) {
  HeadRole r;
  const float* map = m.weights->data() + (l * heads + h) * m.rows * m.cols;
  for (size_t i = 0; i < m.rows; ++i) {
    const size_t seen = m.causal ? i + 1 : m.cols;
    if (seen < 2) continue;
    const float* row = map + i * m.cols;
    const double p = Position(m, i);
    size_t best = 0, rarest = 0;
    double distance = 0;
    for (size_t j = 0; j < seen; ++j) {
      if (row[j] > row[best]) best = j;
      if ((*m.rarity)[j] < (*m.rarity)[rarest]) rarest = j;
      distance += row[j] * std::fabs(double(j) - p);
    }
    const long offset = long(best) - std::lround(p);
    r.confidence += row[best];
    r.previous += offset == -1;
    r.same += offset == 0;
    r.next += offset == 1;
    r.rare += best == rarest && std::isfinite((*m.rarity)[rarest]);
    r.boundary += best == m.boundary;
    r.distance += distance;
    ++r.rows;
  }
  if (r.rows > 0) {
    const double n = double(r.rows);
    for (double* v : {&r.confidence, &r.previous, &r.same, &r.next, &r.rare,
                      &r.boundary, &r.distance}) {
      *v /= n;
    }
  }
  return r;
}

std::vector<HeadRole> RolesOf(const Maps& m, size_t heads) {
  if (m.weights == nullptr ||
      m.weights->size() != m.layers * heads * m.rows * m.cols ||
      m.rarity->size() != m.cols) {
    throw Error("head roles: attention maps do not match their shapes");
  }
  std::vector<HeadRole> out;
  for (size_t l = 0; l < m.layers; ++l) {
    for (size_t h = 0; h < heads; ++h) out.push_back(RoleOf(m, l, h, heads));
  }
  return out;
}

void Merge(const std::vector<HeadRole>& more, std::vector<HeadRole>* total) {
  for (size_t k = 0; k < more.size(); ++k) {
    const HeadRole& b = more[k];
    HeadRole& a = (*total)[k];
    const size_t rows = a.rows + b.rows;
    if (rows == 0) continue;
    const double wa = double(a.rows) / double(rows);
    const double wb = double(b.rows) / double(rows);
    a.confidence = wa * a.confidence + wb * b.confidence;
    a.previous = wa * a.previous + wb * b.previous;
    a.same = wa * a.same + wb * b.same;
    a.next = wa * a.next + wb * b.next;
    a.rare = wa * a.rare + wb * b.rare;
    a.boundary = wa * a.boundary + wb * b.boundary;
    a.distance = wa * a.distance + wb * b.distance;
    a.rows = rows;
  }
}

}  // namespace

HeadRoles ComputeHeadRoles(const SentenceAttention& a) {
  if (a.S == 0 || a.T == 0) {
    throw Error("head roles: a sentence needs source and target tokens");
  }
  HeadRoles out;
  out.heads = a.heads;
  out.encoder = RolesOf({a.encoder, a.encoder_layers, a.S, a.S, false, false,
                         a.S - 1, &a.source_rarity},
                        a.heads);
  out.decoder = RolesOf(
      {a.decoder, a.decoder_layers, a.T, a.T, true, false, 0, &a.input_rarity},
      a.heads);
  out.cross = RolesOf({a.cross, a.decoder_layers, a.T, a.S, false, true,
                       a.S - 1, &a.source_rarity},
                      a.heads);
  return out;
}

void MergeHeadRoles(const HeadRoles& more, HeadRoles* total) {
  if (total->encoder.empty() && total->decoder.empty() &&
      total->cross.empty()) {
    *total = more;
    return;
  }
  if (more.heads != total->heads ||
      more.encoder.size() != total->encoder.size() ||
      more.decoder.size() != total->decoder.size() ||
      more.cross.size() != total->cross.size()) {
    throw Error("head roles: cannot merge roles of models of other shapes");
  }
  Merge(more.encoder, &total->encoder);
  Merge(more.decoder, &total->decoder);
  Merge(more.cross, &total->cross);
}

std::string RoleName(const HeadRole& r) {
  const struct {
    double share;
    const char* name;
  } positional[] = {{r.previous, "previous token"},
                    {r.same, "same token"},
                    {r.next, "next token"}};
  for (const auto& p : positional) {
    if (p.share >= 0.9) return p.name;
  }
  for (const auto& p : positional) {
    if (p.share >= 0.6) return std::string("mostly ") + p.name;
  }
  if (r.rare >= 0.5 && r.rare >= r.boundary) return "rare token";
  if (r.boundary >= 0.5) return "boundary";
  return "";
}

}  // namespace heed
