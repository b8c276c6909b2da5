// The attention JSON the CLI writes (--attention-json): the schema of
// docs/attention.md, shared with the JS result and the page's export.
#ifndef HEED_CLI_ATTENTION_JSON_H_
#define HEED_CLI_ATTENTION_JSON_H_

#include <nlohmann/json.hpp>

#include "core/translator.h"

namespace heed::cli {

// One input line's result: its text and, per sentence, pieces, scores,
// confidences, every attention map and (when asked) contributions and the
// logit lens.
nlohmann::json AttentionJson(const Result& r);

}  // namespace heed::cli

#endif  // HEED_CLI_ATTENTION_JSON_H_
