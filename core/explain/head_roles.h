// Head roles: what each attention head habitually looks at, and how far
// (Voita et al., ACL 2019, "Analyzing Multi-Head Self-Attention:
// Specialized Heads Do the Heavy Lifting, the Rest Can Be Pruned"; Tang et
// al., EMNLP 2018, on attention distance). Computed per sentence from its
// attention maps and merged over a test set by `heed heads`.
#ifndef HEED_CORE_EXPLAIN_HEAD_ROLES_H_
#define HEED_CORE_EXPLAIN_HEAD_ROLES_H_

#include <cstddef>
#include <string>
#include <vector>

namespace heed {

// One head's habits over its rows (queries). Row i's position p(i) is i for
// self-attention and the diagonal i·(S−1)/(T−1) for cross-attention (the
// first target token faces the first source token, the last the last).
// Rows that can see a single token (the decoder's first) are left out.
struct HeadRole {
  double confidence = 0;  // mean over rows of the largest weight
  // Shares of rows whose largest weight is on the token at p(i) − 1, p(i),
  // p(i) + 1 (Voita's positional heads: ≥ 90% on one of them).
  double previous = 0, same = 0, next = 0;
  // Share of rows whose largest weight is on the rarest token the row can
  // see: the piece with the lowest unigram log-probability in the
  // tokenizer (Voita's rare-word head).
  double rare = 0;
  // Share of rows whose largest weight is on the sentence boundary: the
  // source's EOS (encoder, cross) or the decoder's BOS input, where heads
  // that have nothing to do put their weight (Clark et al. 2019).
  double boundary = 0;
  double distance = 0;  // mean over rows of Σ_j α_ij |j − p(i)|, in tokens
  size_t rows = 0;      // rows counted
};

// A role's numeric fields by the names the JSON and JavaScript results use,
// in order (rows aside): one list for every writer.
struct HeadRoleField {
  const char* name;
  double HeadRole::*value;
};
inline constexpr HeadRoleField kHeadRoleFields[] = {
    {"confidence", &HeadRole::confidence},
    {"previous", &HeadRole::previous},
    {"same", &HeadRole::same},
    {"next", &HeadRole::next},
    {"rare", &HeadRole::rare},
    {"boundary", &HeadRole::boundary},
    {"distance", &HeadRole::distance}};

// Every head of one sentence or of many, (layers, heads) row-major.
struct HeadRoles {
  size_t heads = 0;
  std::vector<HeadRole> encoder;  // (encoder_layers, heads)
  std::vector<HeadRole> decoder;  // (decoder_layers, heads)
  std::vector<HeadRole> cross;    // (decoder_layers, heads)
};

// The attention of one sentence, as in Attention (core/result.h), and the
// rarity of each token a row can see: source_rarity (S) for the source
// tokens, input_rarity (T) for decoder inputs (BOS, then the target tokens
// but the last); each the token's unigram log-probability, +∞ for a token
// that is never "rare" (tags, BOS, EOS).
struct SentenceAttention {
  size_t encoder_layers = 0, decoder_layers = 0, heads = 0, S = 0, T = 0;
  const std::vector<float>* encoder = nullptr;  // (layers, heads, S, S)
  const std::vector<float>* decoder = nullptr;  // (layers, heads, T, T)
  const std::vector<float>* cross = nullptr;    // (layers, heads, T, S)
  std::vector<float> source_rarity;             // (S)
  std::vector<float> input_rarity;              // (T)
};

HeadRoles ComputeHeadRoles(const SentenceAttention& a);

// Adds `more` to `total` as a row-weighted mean (an empty total takes its
// shape); throws heed::Error when the shapes differ.
void MergeHeadRoles(const HeadRoles& more, HeadRoles* total);

// The head's role, or "" when it has none: "previous token", "same token"
// or "next token" when ≥ 90% of rows look there (Voita's positional
// heads), "mostly previous token" (...) at ≥ 60%, else "rare token" or
// "boundary" (≥ 50% of rows).
std::string RoleName(const HeadRole& role);

}  // namespace heed

#endif  // HEED_CORE_EXPLAIN_HEAD_ROLES_H_
