// heed's WebAssembly module (build/wasm/dist/heed.js) in Node, as a peer in
// bench/compare.py. A batch of b lines is one text of b lines, which the
// engine splits into sentences and decodes together.
//   node bench/peers/heed_wasm.mjs JOB.json RESULT.json
// JOB: {"model": path, "lines": [text], "to": "de", "beam": k, "batch": b,
//       "runs": r}
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const root = new URL("../..", import.meta.url).pathname;
const [jobPath, resultPath] = process.argv.slice(2);
const job = JSON.parse(readFileSync(jobPath, "utf8"));
const t0 = performance.now();
const { createTranslator } = await import(join(root, "build/wasm/dist/heed.js"));
const t = await createTranslator({ model: job.model });
const loadSeconds = (performance.now() - t0) / 1000;
const seconds = [];
let outputs = [], latency = [];
for (let run = 0; run < job.runs; ++run) {
  outputs = [];
  latency = [];
  const start = performance.now();
  for (let i = 0; i < job.lines.length; i += job.batch) {
    const b0 = performance.now();
    const part = job.lines.slice(i, i + job.batch);
    const r = await t.translate(part.join("\n"), { to: job.to, beam: job.beam, maxBatch: job.batch });
    outputs.push(...r.text.split("\n"));
    latency.push((performance.now() - b0) / 1000);
  }
  seconds.push((performance.now() - start) / 1000);
}
writeFileSync(resultPath, JSON.stringify({
  outputs, seconds, latency, load_seconds: loadSeconds,
  peak_rss_bytes: process.resourceUsage().maxRSS * 1024, heap_bytes: t.info().heapBytes,
}));
t.dispose();
