// Unknown pieces copied from the source. A vocabulary without byte fallback
// writes a character it lacks ("ø", "<", "~") as its unknown piece, which
// SentencePiece prints as " ⁇ ". Where a translation writes that piece, the
// reader wants the source's character back: each one copies the source
// unknown that the decoder's last layer of cross-attention, summed over its
// heads, weighs most at that step (the attention word alignment also reads,
// core/html/align.h).
#ifndef HEED_CORE_UNKNOWNS_H_
#define HEED_CORE_UNKNOWNS_H_

#include <vector>

#include "core/model/model.h"
#include "core/model/run_options.h"
#include "core/plan.h"

namespace heed {

// Per unknown piece of `tokens` (a hypothesis of sentence b of enc, whose
// unit is `unit`; target unknown: the config's unk_id), in order, the index
// in unit.unknowns it copies; -1 where the source has none. `source_unk` is
// the source vocabulary's unknown piece. A teacher-forced pass over the
// hypothesis runs only where the source's unknowns are not all the same
// text, with `run`'s switches (sublayers, positions, masked heads, which
// have no say in the choice) and no other capture.
std::vector<int> CopiedUnknowns(const Model& model, const EncoderOutput& enc,
                                size_t b, const Unit& unit, int source_unk,
                                const std::vector<int>& tokens,
                                const RunOptions& run);

}  // namespace heed

#endif  // HEED_CORE_UNKNOWNS_H_
