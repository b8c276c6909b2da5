// What one decoder step captured for one hypothesis, and the maps its steps
// stack into. Model::CaptureStep fills a StepCapture from a decoder state;
// the search keeps one per token it produces (History); StackSteps turns the
// chain of the hypothesis returned into per-layer maps, once. A new captured
// quantity is a field here, a line in CaptureStep and one in StackSteps.
#ifndef HEED_CORE_MODEL_STEP_CAPTURE_H_
#define HEED_CORE_MODEL_STEP_CAPTURE_H_

#include <cstddef>
#include <vector>

namespace heed {

// One row's captures of one step i (the step that read decoder input i and
// produced token i), L decoder layers, H heads, S the row's source length,
// d the model width. Each field is empty unless the run captured it.
struct StepCapture {
  std::vector<float> self;    // (L, H, i + 1): over decoder inputs 0..i
  std::vector<float> cross;   // (L, H, S): over the source tokens
  std::vector<float> hidden;  // (L, d): each layer's output (logit lens)
  std::vector<float> norms;   // (L, 4): ‖x‖ entering self-attention,
                              // ‖what it adds‖, ‖x‖ entering
                              // cross-attention, ‖what it adds‖
  std::vector<float> values;  // (L, H): ‖(x_i W_V + b_V)^h W_O^h‖ of decoder
                              // input i in each self-attention head
};

// A hypothesis's T steps stacked; empty where the steps captured nothing.
// Row i is the step that produced token i; decoder self-attention column j
// is decoder input j (BOS, tokens[0], ...), so row i sees columns 0..i and
// the columns after it are 0.
struct DecoderMaps {
  std::vector<float> self;    // (L, H, T, T)
  std::vector<float> cross;   // (L, H, T, S)
  std::vector<float> norms;   // (L, T, 4)
  std::vector<float> values;  // (L, H, T): of decoder input i
};

// The maps of the steps `steps` (step i at steps[i]), L layers, H heads, S
// source tokens, moved out of them: each step's field is freed once copied,
// so the peak holds one field twice, not every map. The hidden states are
// freed too (the logit lens reads them before).
DecoderMaps StackSteps(const std::vector<StepCapture*>& steps, size_t L,
                       size_t H, size_t S);

}  // namespace heed

#endif  // HEED_CORE_MODEL_STEP_CAPTURE_H_
