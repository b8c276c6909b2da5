// ALTI and ALTI+ (Ferrando, Gállego, Costa-jussà, EMNLP 2022, "Measuring the
// Mixing of Contextual Information in the Transformer"; Ferrando, Gállego,
// Alastruey, Escolano, Costa-jussà, EMNLP 2022, "Towards Opening the Black
// Box of Neural Machine Translation"): how much of each token's state after
// an attention block comes from each input token, through the heads, the
// residual connection and the LayerNorm, and, rolled out through the
// layers, how much of each decoding step comes from the source and how
// much from the target prefix. The feed-forward sublayers are token-wise
// and left out, as in the reference implementation
// (mt-upc/transformer-contributions-nmt).
#ifndef HEED_CORE_EXPLAIN_ALTI_H_
#define HEED_CORE_EXPLAIN_ALTI_H_

#include <cstddef>
#include <cstdint>
#include <vector>

namespace heed {

// One attention block of one sentence: y_i = LN(x_i + Σ_j z_ij + b_O)
// (post-norm) or y_i = x_i + Σ_j z_ij + b_O (pre-norm), with
// z_ij = Σ_h α^h_ij f_h(x_j).
struct AltiBlock {
  size_t heads = 0, rows = 0, keys = 0, d = 0;
  const float* head_outputs = nullptr;  // (heads, keys, d): f_h(x_j) =
                                        // (x_j W_V + b_V)^h W_O^h
  const float* probs = nullptr;         // (heads, rows, keys): α
  const uint8_t* disabled = nullptr;    // (heads) or null: 1 adds nothing
  const float* residual = nullptr;      // (rows, d): x_i, the block's input
  const float* out_bias = nullptr;      // (d) b_O, or null
  // Post-norm: the LayerNorm after the residual, (d) each; null for
  // pre-norm, where the block's output is the residual stream itself.
  const float* gamma = nullptr;
  const float* beta = nullptr;
  float eps = 0.0f;
  // Cross-attention: the residual (the decoder's own stream) is a column of
  // its own, after the keys; self-attention: it belongs to token i itself.
  bool residual_column = false;
  bool off = false;  // the sublayer is switched off: it adds nothing
};

// The block's contributions c (rows, keys + residual_column): with the
// LayerNorm taken as linear at its actual scale σ_i, T_i(x_j) =
// γ ⊙ (t − mean t) / σ_i for t = z_ij (+ x_i where the residual belongs to
// j), and c_ij = max(0, ‖y_i‖₁ − ‖y_i − T_i(x_j)‖₁) normalised over j. b_O
// and β belong to no token. A row whose every c_ij is 0 goes to the
// residual.
void AltiContributions(const AltiBlock& block, float* c);

// Encoder rollout of per-layer contributions (layers, S, S): R_1 = C_1,
// R_l = C_l · R_{l−1}. Returns (layers, S, S).
std::vector<float> AltiRollout(const std::vector<float>& layers,
                               size_t n_layers, size_t S);

// ALTI+ over the decoder: self (layers, T, T) and cross (layers, T, S + 1)
// contributions of each decoder layer, and the encoder's final rollout
// (S, S). Row i's self-attention share is scaled by its residual share in
// cross-attention; R_0 = [0 | I] and
//   R_l = [X_l · R_enc + S_l · R_{l−1}^src | S_l · R_{l−1}^tgt]
// with X_l the cross block's source columns and S_l = diag(r_l) · C_self_l.
// Returns (layers, T, S + T): what decoder input i after layer l draws on
// each source token and each decoder input; rows sum to 1.
std::vector<float> AltiPlus(const std::vector<float>& self,
                            const std::vector<float>& cross,
                            const float* encoder_rollout, size_t n_layers,
                            size_t T, size_t S);

}  // namespace heed

#endif  // HEED_CORE_EXPLAIN_ALTI_H_
