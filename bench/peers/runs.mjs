// The timing loop the JavaScript drivers of bench/compare.py share.

/**
 * Translates `items` in batches of `batch`, `runs` times, with
 * translateBatch(items) -> outputs. Returns the last run's outputs, the
 * seconds of each run and the seconds of each batch of the last run.
 */
export async function timeRuns(items, batch, runs, translateBatch) {
  const seconds = [];
  let outputs = [], latency = [];
  for (let run = 0; run < runs; ++run) {
    outputs = [];
    latency = [];
    const start = performance.now();
    for (let i = 0; i < items.length; i += batch) {
      const b0 = performance.now();
      outputs.push(...await translateBatch(items.slice(i, i + batch)));
      latency.push((performance.now() - b0) / 1000);
    }
    seconds.push((performance.now() - start) / 1000);
  }
  return { outputs, seconds, latency };
}
