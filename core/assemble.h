// Turning a unit's hypotheses and captures into its SentenceResult (the
// public result types of core/result.h), and a request's sentences back
// into texts with their layout.
#ifndef HEED_CORE_ASSEMBLE_H_
#define HEED_CORE_ASSEMBLE_H_

#include <string>
#include <vector>

#include "core/decode/search.h"
#include "core/model/config.h"
#include "core/model/model.h"
#include "core/model/run_options.h"
#include "core/plan.h"
#include "core/result.h"
#include "core/text/sentences.h"
#include "core/text/tokenizer.h"

namespace heed {

// What the encoder (and a replay of the best hypothesis) captured for one
// unit.
struct EncoderMaps {
  std::vector<float> attention;            // (encoder_layers, heads, S, S)
  std::vector<float> value_norms;          // (encoder_layers, heads, S)
  std::vector<float> cross_value_norms;    // (decoder_layers, heads, S)
  std::vector<float> layer_contributions;  // (encoder_layers, S, S)
  std::vector<float> alti;                 // (encoder_layers, S, S)
  std::vector<float> queries, keys;        // of an encoder head, (S, dh)
  ForcedCaptures replay;                   // empty unless NeedsReplay
};

// The sentence result of one unit: its pieces, its n-best translations
// (each hypothesis's unknown pieces written as the source text `copies`
// says, per hypothesis; none where copies is empty), the logit lens and,
// when captured, its attention and what derives from it. The best
// hypothesis's maps are moved, not copied.
SentenceResult MakeSentenceResult(const ModelConfig& c, const Tokenizer& source,
                                  const Tokenizer& target, const Unit& unit,
                                  NBest&& nbest,
                                  const std::vector<std::vector<int>>& copies,
                                  EncoderMaps&& maps, const RunOptions& run);

// Each text with its original spacing and line breaks; sentences translated
// in pieces are joined with a space.
void Reassemble(
    const std::vector<std::vector<Segment>>& segments,
    const std::vector<std::vector<std::vector<std::string>>>& translated,
    std::vector<Result>* results);

}  // namespace heed

#endif  // HEED_CORE_ASSEMBLE_H_
