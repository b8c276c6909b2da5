#include "core/model/step_capture.h"

#include <algorithm>

namespace heed {
namespace {

// The field f of every step stacked (blocks, T, width): row i of block b
// holds step i's len(i) values of block b, and zeros after them. Each
// step's field is freed once copied.
template <typename Len>
std::vector<float> Stack(const std::vector<StepCapture*>& steps,
                         std::vector<float> StepCapture::*f, size_t blocks,
                         size_t width, Len len) {
  const size_t T = steps.size();
  if (T == 0 || (steps[0]->*f).empty()) return {};
  std::vector<float> out(blocks * T * width, 0.0f);
  for (size_t i = 0; i < T; ++i) {
    const float* v = (steps[i]->*f).data();
    const size_t n = len(i);
    for (size_t b = 0; b < blocks; ++b) {
      std::copy_n(v + b * n, n, out.data() + (b * T + i) * width);
    }
    std::vector<float>().swap(steps[i]->*f);
  }
  return out;
}

}  // namespace

DecoderMaps StackSteps(const std::vector<StepCapture*>& steps, size_t L,
                       size_t H, size_t S) {
  const size_t T = steps.size();
  DecoderMaps m;
  m.self = Stack(steps, &StepCapture::self, L * H, T,
                 [](size_t i) { return i + 1; });
  m.cross =
      Stack(steps, &StepCapture::cross, L * H, S, [S](size_t) { return S; });
  m.norms = Stack(steps, &StepCapture::norms, L, 4, [](size_t) { return 4; });
  m.values =
      Stack(steps, &StepCapture::values, L * H, 1, [](size_t) { return 1; });
  for (StepCapture* s : steps) std::vector<float>().swap(s->hidden);
  return m;
}

}  // namespace heed
