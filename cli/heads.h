// heed heads: what each attention head habitually does over a test set
// (core/explain/head_roles.h), as a table and as JSON.
#ifndef HEED_CLI_HEADS_H_
#define HEED_CLI_HEADS_H_

#include "cli/flags.h"

namespace heed::cli {

// Translates stdin's lines with the flags' options, merges every
// sentence's head roles, prints them as a table on stdout and, with
// --out FILE, writes them as JSON. Returns the exit status.
int Heads(const Flags& flags);

}  // namespace heed::cli

#endif  // HEED_CLI_HEADS_H_
