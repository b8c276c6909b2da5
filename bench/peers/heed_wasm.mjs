// heed's WebAssembly module (build/wasm/dist/heed.js) in Node, as a peer in
// bench/compare.py. A batch of b lines is one text of b lines, which the
// engine splits into sentences and decodes together.
//   node bench/peers/heed_wasm.mjs JOB.json RESULT.json
// JOB: {"model": path, "lines": [text], "to": "de", "beam": k, "batch": b,
//       "runs": r, "threads": t}
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { timeRuns } from "./runs.mjs";

const root = new URL("../..", import.meta.url).pathname;
const [jobPath, resultPath] = process.argv.slice(2);
const job = JSON.parse(readFileSync(jobPath, "utf8"));
const t0 = performance.now();
const { createTranslator } = await import(join(root, "build/wasm/dist/heed.js"));
const t = await createTranslator({ model: job.model, threads: job.threads ?? 1 });
const loadSeconds = (performance.now() - t0) / 1000;
const { outputs, seconds, latency } = await timeRuns(job.lines, job.batch, job.runs, async (part) =>
  (await t.translate(part.join("\n"), { to: job.to, beam: job.beam, maxBatch: job.batch })).text.split("\n"));
writeFileSync(resultPath, JSON.stringify({
  outputs, seconds, latency, load_seconds: loadSeconds,
  peak_rss_bytes: process.resourceUsage().maxRSS * 1024, heap_bytes: t.info().heapBytes,
}));
t.dispose();
