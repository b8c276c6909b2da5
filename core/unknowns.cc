#include "core/unknowns.h"

#include <algorithm>

namespace heed {
namespace {

// Positions of `id` in ids.
std::vector<size_t> IndicesOf(const std::vector<int>& ids, int id) {
  std::vector<size_t> at;
  for (size_t i = 0; i < ids.size(); ++i) {
    if (ids[i] == id) at.push_back(i);
  }
  return at;
}

// The cross-attention of one teacher-forced pass over tokens: (layers,
// heads, T, len_b). Only the attention is kept; run's switches stay.
std::vector<float> CrossAttention(const Model& model, const EncoderOutput& enc,
                                  size_t b, const std::vector<int>& tokens,
                                  const RunOptions& run) {
  RunOptions attend = run;  // the same model changes, only attention kept
  attend.capture_attention = true;
  attend.capture_hidden = false;
  attend.capture_value_norms = false;
  attend.capture_alti = false;
  attend.capture_sublayer_norms = false;
  attend.probe = HeadProbe{};
  return std::move(model.Replay(enc, b, tokens, attend).cross_probs);
}

}  // namespace

std::vector<int> CopiedUnknowns(const Model& model, const EncoderOutput& enc,
                                size_t b, const Unit& unit, int source_unk,
                                const std::vector<int>& tokens,
                                const RunOptions& run) {
  const std::vector<size_t> targets = IndicesOf(tokens, model.config().unk_id);
  const std::vector<size_t> sources = IndicesOf(unit.ids, source_unk);
  if (targets.empty()) return {};
  const size_t known = std::min(sources.size(), unit.unknowns.size());
  if (known == 0) return std::vector<int>(targets.size(), -1);
  const bool all_same =
      std::all_of(unit.unknowns.begin(), unit.unknowns.begin() + known,
                  [&](const std::string& u) { return u == unit.unknowns[0]; });
  if (all_same) return std::vector<int>(targets.size(), 0);

  const std::vector<float> cross = CrossAttention(model, enc, b, tokens, run);
  const ModelConfig& c = model.config();
  const size_t T = tokens.size(), S = enc.lengths[b], H = c.heads;
  if (cross.size() != c.decoder_layers * H * T * S) {
    return std::vector<int>(targets.size(), -1);
  }
  const size_t layer = c.decoder_layers - 1;
  const float* last = cross.data() + layer * H * T * S;
  // A masked head still attends but adds nothing: it has no say.
  const uint8_t* masked = run.head_mask.Layer(AttentionKind::kCross, layer, H);
  std::vector<int> copies;
  for (size_t t : targets) {
    int best = 0;
    float best_weight = -1.0f;
    for (size_t k = 0; k < known; ++k) {
      float weight = 0.0f;
      for (size_t h = 0; h < H; ++h) {
        if (masked == nullptr || masked[h] == 0) {
          weight += last[(h * T + t) * S + sources[k]];
        }
      }
      if (weight > best_weight) {
        best_weight = weight;
        best = static_cast<int>(k);
      }
    }
    copies.push_back(best);
  }
  return copies;
}

}  // namespace heed
