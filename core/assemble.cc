#include "core/assemble.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "core/explain/alti.h"
#include "core/explain/contributions.h"
#include "core/explain/head_roles.h"
#include "core/explain/rollout.h"

namespace heed {
namespace {

// The hypothesis as text, with its unknown pieces written as the source
// text they copy (copies: CopiedUnknowns; null or empty: none to copy).
std::string HypothesisText(const Hypothesis& h, const Unit& unit,
                           const std::vector<int>* copies,
                           const Tokenizer& target) {
  if (copies == nullptr || copies->empty()) return target.Decode(h.tokens);
  std::vector<std::string> copied;
  for (int k : *copies) copied.push_back(k >= 0 ? unit.unknowns[k] : "");
  return target.Decode(h.tokens, copied);
}

Translation MakeTranslation(const Hypothesis& h, const Unit& unit,
                            const std::vector<int>* copies,
                            const Tokenizer& target) {
  Translation tr;
  tr.ids = h.tokens;
  for (int id : h.tokens) tr.pieces.push_back(target.Piece(id));
  tr.text = HypothesisText(h, unit, copies, target);
  tr.score = h.score;
  tr.log_prob = h.log_prob;
  tr.token_probs = h.token_probs;
  tr.entropies = h.entropies;
  return tr;
}

// A masked head adds nothing, whatever it attended to: its blocks of
// (layers, heads, block) contribution maps become 0.
void ZeroMasked(const HeadMask& mask, AttentionKind kind, size_t layers,
                size_t heads, size_t block, std::vector<float>* maps) {
  const uint8_t* flags = mask.Layer(kind, 0, heads);
  for (size_t lh = 0; flags != nullptr && lh < layers * heads; ++lh) {
    if (flags[lh] != 0) {
      std::fill_n(maps->begin() + lh * block, block, 0.0f);
    }
  }
}

// Moves the best hypothesis's attention (and the unit's encoder captures)
// into the sentence result, with what is derived from them.
void MoveAttention(const ModelConfig& c, const RunOptions& run,
                   const Tokenizer& target, EncoderMaps&& maps,
                   Hypothesis&& best, SentenceResult* sr) {
  Attention& a = sr->attention;
  a.encoder_layers = c.encoder_layers;
  a.decoder_layers = c.decoder_layers;
  a.heads = c.heads;
  a.source = sr->source_ids.size();
  a.target = best.tokens.size();
  a.encoder = std::move(maps.attention);
  a.rollout = AttentionRollout(a.encoder, a.encoder_layers, a.heads, a.source);
  a.decoder = std::move(best.maps.self);
  a.cross = std::move(best.maps.cross);
  a.sublayer_norms = std::move(best.maps.norms);
  if (!maps.value_norms.empty()) {
    a.encoder_contributions =
        NormWeighted(a.encoder, maps.value_norms, a.encoder_layers, a.heads,
                     a.source, a.source);
    a.cross_contributions =
        NormWeighted(a.cross, maps.cross_value_norms, a.decoder_layers, a.heads,
                     a.target, a.source);
    a.decoder_contributions =
        NormWeighted(a.decoder, best.maps.values, a.decoder_layers, a.heads,
                     a.target, a.target);
    const HeadMask& m = run.head_mask;
    ZeroMasked(m, AttentionKind::kEncoder, a.encoder_layers, a.heads,
               a.source * a.source, &a.encoder_contributions);
    ZeroMasked(m, AttentionKind::kDecoder, a.decoder_layers, a.heads,
               a.target * a.target, &a.decoder_contributions);
    ZeroMasked(m, AttentionKind::kCross, a.decoder_layers, a.heads,
               a.target * a.source, &a.cross_contributions);
    a.encoder_layer_contributions = std::move(maps.layer_contributions);
    a.decoder_layer_contributions =
        std::move(maps.replay.self_layer_contributions);
    a.cross_layer_contributions =
        std::move(maps.replay.cross_layer_contributions);
  }
  if (!maps.alti.empty()) {
    a.alti_encoder = AltiRollout(maps.alti, a.encoder_layers, a.source);
  }
  if (!a.alti_encoder.empty() && !maps.replay.alti_self.empty()) {
    a.alti =
        AltiPlus(maps.replay.alti_self, maps.replay.alti_cross,
                 &a.alti_encoder[(a.encoder_layers - 1) * a.source * a.source],
                 a.decoder_layers, a.target, a.source);
  }
  if (run.probe.on) {
    a.query_key = HeadRef{run.probe.kind, run.probe.layer, run.probe.head};
    a.head_dim = c.head_dim();
    const bool encoder = run.probe.kind == AttentionKind::kEncoder;
    a.queries = std::move(encoder ? maps.queries : maps.replay.queries);
    a.keys = std::move(encoder ? maps.keys : maps.replay.keys);
  }
  for (const auto& step : best.alternatives) {
    std::vector<Alternative> alts;
    alts.reserve(step.size());
    for (const Candidate& cand : step) {
      alts.push_back(
          Alternative{target.Piece(cand.token), std::exp(cand.log_prob)});
    }
    sr->alternatives.push_back(std::move(alts));
  }
}

// A token's rarity for head roles: its unigram log-probability, +∞ for
// the pieces no text is made of (BOS, EOS, padding, the tags in `tags`).
float Rarity(const ModelConfig& c, const Tokenizer& tokenizer,
             const std::vector<int>& tags, int id) {
  const bool special = id == c.bos_id || id == c.eos_id || id == c.pad_id ||
                       std::find(tags.begin(), tags.end(), id) != tags.end();
  return special ? INFINITY : tokenizer.Score(id);
}

// The head roles of a sentence whose attention was moved in.
HeadRoles SentenceRoles(const ModelConfig& c, const Tokenizer& source,
                        const Tokenizer& target, const SentenceResult& sr) {
  const Attention& a = sr.attention;
  SentenceAttention in{
      a.encoder_layers, a.decoder_layers, a.heads,  a.source, a.target,
      &a.encoder,       &a.decoder,       &a.cross, {},       {}};
  std::vector<int> source_tags, target_tags;
  for (const auto& entry : c.target_tags) {
    source_tags.push_back(source.PieceId(entry.second));
    target_tags.push_back(target.PieceId(entry.second));
  }
  for (int id : sr.source_ids) {
    in.source_rarity.push_back(Rarity(c, source, source_tags, id));
  }
  in.input_rarity.push_back(INFINITY);  // BOS
  for (size_t t = 0; t + 1 < a.target; ++t) {
    in.input_rarity.push_back(Rarity(c, target, target_tags, sr.best.ids[t]));
  }
  return ComputeHeadRoles(in);
}

}  // namespace

SentenceResult MakeSentenceResult(const ModelConfig& c, const Tokenizer& source,
                                  const Tokenizer& target, const Unit& unit,
                                  NBest&& nbest,
                                  const std::vector<std::vector<int>>& copies,
                                  EncoderMaps&& maps, const RunOptions& run) {
  SentenceResult sr;
  sr.source = unit.source;
  sr.segment = unit.segment;
  sr.source_ids = unit.ids;
  for (int id : unit.ids) sr.source_pieces.push_back(source.Piece(id));
  for (size_t i = 0; i < nbest.size(); ++i) {
    const std::vector<int>* own = i < copies.size() ? &copies[i] : nullptr;
    sr.nbest.push_back(MakeTranslation(nbest[i], unit, own, target));
  }
  sr.best = sr.nbest.at(0);
  const Hypothesis& best = nbest[0];
  if (!best.lens.empty()) {
    LogitLens& lens = sr.lens;
    lens.layers = c.decoder_layers;
    lens.steps = best.tokens.size();
    lens.k = best.lens.size() / (lens.layers * lens.steps);
    for (const Candidate& cand : best.lens) {
      lens.top.push_back(
          Alternative{target.Piece(cand.token), std::exp(cand.log_prob)});
    }
    lens.token_probs = best.lens_token_probs;
  }
  if (run.capture_attention) {
    MoveAttention(c, run, target, std::move(maps), std::move(nbest[0]), &sr);
    sr.attention.roles = SentenceRoles(c, source, target, sr);
  }
  return sr;
}

void Reassemble(
    const std::vector<std::vector<Segment>>& segments,
    const std::vector<std::vector<std::vector<std::string>>>& translated,
    std::vector<Result>* results) {
  for (size_t i = 0; i < segments.size(); ++i) {
    for (size_t s = 0; s < segments[i].size(); ++s) {
      if (!segments[i][s].is_sentence) {
        (*results)[i].text += segments[i][s].text;
        continue;
      }
      const auto& parts = translated[i][s];
      for (size_t p = 0; p < parts.size(); ++p) {
        (*results)[i].text += (p ? " " : "") + parts[p];
      }
    }
  }
}

}  // namespace heed
