#include "core/batch.h"

#include <algorithm>
#include <chrono>
#include <utility>

#include "core/parallel.h"
#include "core/unknowns.h"

namespace heed {
namespace {

using Clock = std::chrono::steady_clock;

double Ms(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

// The decoder's layer-summed contributions, ALTI and a decoder head's
// queries and keys need the whole target at once: a teacher-forced pass over
// the best hypothesis gives them.
bool NeedsReplay(const RunOptions& run) {
  return run.capture_value_norms || run.capture_alti ||
         (run.probe.on && run.probe.kind != AttentionKind::kEncoder);
}

void RunBatch(const Model& model, const std::vector<Unit>& units,
              const Plan& plan, Batch& b, SpareCache* spare) {
  std::vector<std::vector<int>> ids;
  for (size_t u = b.first; u < b.last; ++u) ids.push_back(units[u].ids);
  const auto e0 = Clock::now();
  b.enc = model.Encode(ids, plan.run);
  const auto e1 = Clock::now();
  b.found = Search(model, b.enc, plan.decoding, plan.run, spare);
  for (size_t i = 0; i < b.found.size() && plan.copy_unknown; ++i) {
    StopIfCancelled(plan.decoding);
    auto& unit_copies = b.copies.emplace_back();
    for (const Hypothesis& h : b.found[i]) {
      unit_copies.push_back(CopiedUnknowns(model, b.enc, i, units[b.first + i],
                                           plan.source_unk, h.tokens,
                                           plan.run));
    }
  }
  for (size_t i = 0; i < b.found.size() && NeedsReplay(plan.run); ++i) {
    b.replays.push_back(model.Replay(b.enc, i, b.found[i][0].tokens, plan.run));
  }
  b.encode_ms = Ms(e0, e1);
  b.decode_ms = Ms(e1, Clock::now());
}

}  // namespace

// Unit i of batch b's captures, moved out of the batch.
EncoderMaps TakeMaps(Batch& b, size_t i) {
  EncoderOutput& enc = b.enc;
  EncoderMaps maps;
  auto take = [i](std::vector<std::vector<float>>& from,
                  std::vector<float>* to) {
    if (!from.empty()) *to = std::move(from[i]);
  };
  take(enc.attention, &maps.attention);
  take(enc.value_norms, &maps.value_norms);
  take(enc.cross_value_norms, &maps.cross_value_norms);
  take(enc.layer_contributions, &maps.layer_contributions);
  take(enc.alti, &maps.alti);
  take(enc.queries, &maps.queries);
  take(enc.keys, &maps.keys);
  if (!b.replays.empty()) maps.replay = std::move(b.replays[i]);
  return maps;
}

// Decodes the units in waves of up to `threads` batches, one batch per
// thread, and hands each batch to `done` in unit order, so the result does
// not depend on the thread count. A wave's units are shared evenly, so a
// paragraph shorter than `threads` full batches still keeps every thread
// busy.
void DecodeWaves(const Model& model, const std::vector<Unit>& units,
                 const Plan& plan, size_t max_batch, size_t threads,
                 const std::function<void(Batch&)>& done) {
  const size_t per_wave = max_batch * threads;
  std::vector<SpareCache> spares(threads);  // one per thread, wave to wave
  for (size_t wave = 0; wave < units.size(); wave += per_wave) {
    const size_t n = std::min(units.size() - wave, per_wave);
    const size_t size = (n + threads - 1) / threads;  // at most max_batch
    std::vector<Batch> batches;
    for (size_t f = wave; f < wave + n; f += size) {
      Batch& b = batches.emplace_back();
      b.first = f;
      b.last = std::min(wave + n, f + size);
    }
    StopIfCancelled(plan.decoding);
    RunParallel(batches.size(), [&](size_t i) {
      RunBatch(model, units, plan, batches[i], &spares[i]);
    });
    for (Batch& b : batches) done(b);
  }
}

}  // namespace heed
