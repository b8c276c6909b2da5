#include "core/explain/erasure.h"

#include <algorithm>
#include <numeric>

#include "core/error.h"
#include "core/model/model.h"

namespace heed {
namespace {

// The original source first, then one erased copy per erasable piece.
std::vector<std::vector<int>> Variants(const std::vector<int>& source,
                                       const std::vector<uint8_t>& erasable,
                                       ErasureMode mode, int unk,
                                       std::vector<size_t>* erased) {
  std::vector<std::vector<int>> out = {source};
  for (size_t j = 0; j < source.size(); ++j) {
    if (!erasable[j]) continue;
    std::vector<int> v = source;
    if (mode == ErasureMode::kRemove) {
      v.erase(v.begin() + static_cast<std::ptrdiff_t>(j));
    } else {
      v[j] = unk;
    }
    out.push_back(std::move(v));
    erased->push_back(j);
  }
  return out;
}

// Sources forced together: bounds the decoder cache of one pass (a row's
// cache is ~0.3 MB for the shipped model at 100 target pieces).
constexpr size_t kRowsPerPass = 64;

// log p(target_t | variant r, target_<t) for every row r and step t: (R, T).
std::vector<float> ForcedTokenLogProbs(
    const Model& model, const std::vector<std::vector<int>>& variants,
    const std::vector<int>& target, const RunOptions& run) {
  if (variants.size() > kRowsPerPass) {  // in passes of kRowsPerPass rows
    std::vector<float> out;
    for (size_t first = 0; first < variants.size(); first += kRowsPerPass) {
      const size_t last = std::min(variants.size(), first + kRowsPerPass);
      const std::vector<float> part = ForcedTokenLogProbs(
          model, {variants.begin() + first, variants.begin() + last}, target,
          run);
      out.insert(out.end(), part.begin(), part.end());
    }
    return out;
  }
  const ModelConfig& c = model.config();
  const EncoderOutput enc = model.Encode(variants, run);
  std::vector<size_t> rows(variants.size());
  std::iota(rows.begin(), rows.end(), 0);
  DecoderState state = model.StartDecoding(enc, rows, target.size(), run);
  const size_t R = rows.size(), T = target.size();
  std::vector<float> out(R * T);
  std::vector<int> tokens(R, c.bos_id);
  for (size_t t = 0; t < T; ++t) {
    model.Step(state, tokens.data(), run);
    for (size_t r = 0; r < R; ++r) {
      out[r * T + t] = state.log_probs[r * c.target_vocab + target[t]];
    }
    tokens.assign(R, target[t]);
  }
  return out;
}

}  // namespace

ErasureMode ReadErasureMode(const std::string& name) {
  if (name == "off") return ErasureMode::kOff;
  if (name == "remove") return ErasureMode::kRemove;
  if (name == "unk") return ErasureMode::kUnk;
  throw Error("erasure must be off, remove or unk, not '" + name + "'");
}

const char* ErasureModeName(ErasureMode mode) {
  static const char* const kNames[3] = {"off", "remove", "unk"};
  return kNames[static_cast<int>(mode)];
}

std::vector<float> ErasureEffects(const Model& model,
                                  const std::vector<int>& source,
                                  const std::vector<uint8_t>& erasable,
                                  const std::vector<int>& target,
                                  ErasureMode mode, const RunOptions& run) {
  const ModelConfig& c = model.config();
  if (erasable.size() != source.size() || mode == ErasureMode::kOff) {
    throw Error("erasure: needs a mode and one flag per source piece");
  }
  for (int id : target) {
    if (id < 0 || static_cast<size_t>(id) >= c.target_vocab) {
      throw Error("erasure: target piece " + std::to_string(id) +
                  " is outside the vocabulary");
    }
  }
  const size_t S = source.size(), T = target.size();
  std::vector<float> effect(T * S, 0.0f);
  if (T == 0) return effect;
  std::vector<size_t> erased;
  const auto variants = Variants(source, erasable, mode, c.unk_id, &erased);
  RunOptions quiet = run;  // the same model changes, nothing captured
  quiet.capture_attention = false;
  quiet.capture_hidden = false;
  quiet.capture_value_norms = false;
  quiet.capture_sublayer_norms = false;
  quiet.probe = HeadProbe{};
  const std::vector<float> lp =
      ForcedTokenLogProbs(model, variants, target, quiet);
  for (size_t k = 0; k < erased.size(); ++k) {
    for (size_t t = 0; t < T; ++t) {
      effect[t * S + erased[k]] = lp[t] - lp[(k + 1) * T + t];
    }
  }
  return effect;
}

}  // namespace heed
