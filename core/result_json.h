// A translation's result as JSON, in the schema of docs/attention.md: the
// one writer behind the CLI's --attention-json and the page's export. It
// writes to a stream row by row, so a document of hundreds of megabytes
// costs one row of memory beside the result itself.
#ifndef HEED_CORE_RESULT_JSON_H_
#define HEED_CORE_RESULT_JSON_H_

#include <ostream>

#include "core/result.h"

namespace heed {

// {"text", "sentences": [{source, sourcePieces, targetPieces, text, score,
// logProb, tokenProbabilities, entropies, attention, logitLens?}]}, on one
// line. Floats are written as the shortest text that reads back as the
// same float32.
void WriteResultJson(const Result& r, std::ostream& out);

// {"encoder", "decoder", "cross"}: [layer][head] {confidence, previous,
// same, next, rare, boundary, distance, rows, role} (explain/head_roles.h),
// as in each sentence's attention.roles.
void WriteHeadRolesJson(const HeadRoles& roles, std::ostream& out);

}  // namespace heed

#endif  // HEED_CORE_RESULT_JSON_H_
