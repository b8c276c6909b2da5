// Bergamot's WebAssembly engine (npm @browsermt/bergamot-translator) in
// Node, one worker thread, as a peer in bench/compare.py, on heed's model
// exported by models/recipe/marian.py. A batch of b lines is one request of
// b sentences, which Bergamot decodes together.
//   node bench/peers/bergamot_peer.mjs JOB.json RESULT.json
// JOB: {"dir": export folder, "lines": [text], "to": "de", "beam": k,
//       "batch": b, "runs": r}
import { readFileSync, writeFileSync } from "node:fs";
import { loadBergamot } from "./bergamot.mjs";
import { timeRuns } from "./runs.mjs";

const [jobPath, resultPath] = process.argv.slice(2);
const job = JSON.parse(readFileSync(jobPath, "utf8"));
const t0 = performance.now();
const bergamot = await loadBergamot({ dir: job.dir, config: { "beam-size": String(job.beam) } });
await bergamot.translate([`<2${job.to}> .`]);  // the model is loaded lazily
const loadSeconds = (performance.now() - t0) / 1000;
const { outputs, seconds, latency } = await timeRuns(job.lines, job.batch, job.runs, (part) =>
  bergamot.translate(part.map((s) => `<2${job.to}> ${s}`)));
writeFileSync(resultPath, JSON.stringify({
  outputs, seconds, latency, load_seconds: loadSeconds,
  peak_rss_bytes: process.resourceUsage().maxRSS * 1024,
}));
await bergamot.close();
