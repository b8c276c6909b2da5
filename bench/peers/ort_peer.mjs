// The ONNX Runtime peers: the exported encoder and decoder step
// (export_onnx.py) driven by a greedy/beam loop with a key/value cache, on
// onnxruntime-node (native) or onnxruntime-web (its WebAssembly backend with
// SIMD, here in Node).
//   node bench/peers/ort_peer.mjs node|web JOB.json RESULT.json
// JOB: {"onnx": dir, "threads": n, "beam": k, "batch": b, "sources":
//       [[ids]], "runs": r, "config": {bos_id, eos_id, pad_id}}
import { readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { timeRuns } from "./runs.mjs";

const [backend, jobPath, resultPath] = process.argv.slice(2);
const job = JSON.parse(readFileSync(jobPath, "utf8"));
const require = createRequire(import.meta.url);
const ort = backend === "web" ? require("onnxruntime-web") : require("onnxruntime-node");

const t0 = performance.now();
let options;
if (backend === "web") {
  ort.env.wasm.numThreads = job.threads;
  ort.env.wasm.simd = true;
  options = { executionProviders: ["wasm"] };
} else {
  options = { executionProviders: ["cpu"], intraOpNumThreads: job.threads, interOpNumThreads: 1 };
}
const load = async (name) => backend === "web"
  ? ort.InferenceSession.create(readFileSync(join(job.onnx, name)), options)
  : ort.InferenceSession.create(join(job.onnx, name), options);
const encoder = await load("encoder.onnx");
const decoder = await load("decoder.onnx");
const loadSeconds = (performance.now() - t0) / 1000;
const { bos_id: bos, eos_id: eos, pad_id: padId } = job.config;

const int64 = (values, dims) => new ort.Tensor("int64", BigInt64Array.from(values, BigInt), dims);
const penalty = (length) => ((5 + length) / 6) ** 2;  // heed's default α

// Copies rows `order` of a (L, B, H, t, dh) float tensor.
function gatherRows(t, order) {
  const [L, B, H, T, dh] = t.dims;
  const per = H * T * dh;
  const out = new Float32Array(L * order.length * per);
  for (let l = 0; l < L; ++l) {
    order.forEach((r, i) => out.set(t.data.subarray((l * B + r) * per, (l * B + r + 1) * per),
      (l * order.length + i) * per));
  }
  return new ort.Tensor("float32", out, [L, order.length, H, T, dh]);
}

function repeatRows(t, k, axis) {
  const rows = Array.from({ length: t.dims[axis] * k }, (_, i) => Math.floor(i / k));
  if (axis === 1) return gatherRows(t, rows);
  const per = t.data.length / t.dims[0];
  const out = new Float32Array(rows.length * per);
  rows.forEach((r, i) => out.set(t.data.subarray(r * per, (r + 1) * per), i * per));
  return new ort.Tensor("float32", out, [rows.length, ...t.dims.slice(1)]);
}

async function translate(batch, k) {
  const S = Math.max(...batch.map((s) => s.length));
  const src = batch.flatMap((s) => [...s, ...Array(S - s.length).fill(padId)]);
  const enc = await encoder.run({ src: int64(src, [batch.length, S]) });
  const B = batch.length, rows = B * k;
  const crossK = repeatRows(enc.cross_k, k, 1), crossV = repeatRows(enc.cross_v, k, 1);
  const bias = repeatRows(enc.src_bias, k, 0);
  const [L, , H, , dh] = enc.cross_k.dims;
  let pastK = new ort.Tensor("float32", new Float32Array(0), [L, rows, H, 0, dh]);
  let pastV = pastK;
  const limit = batch.map((s) => Math.floor(2 * s.length + 10));
  let tokens = Array(rows).fill(bos);
  let scores = Array.from({ length: B }, () => Array.from({ length: k }, (_, j) => (j ? -Infinity : 0)));
  let seqs = Array.from({ length: B }, () => Array.from({ length: k }, () => []));
  const done = Array.from({ length: B }, () => []);
  const finished = Array(B).fill(false);
  for (let t = 0; t < Math.max(...limit); ++t) {
    const out = await decoder.run({
      tokens: int64(tokens, [rows, 1]), position: int64([t], [1]), past_k: pastK, past_v: pastV,
      cross_k: crossK, cross_v: crossV, src_bias: bias,
    });
    const lp = out.log_probs.data, V = out.log_probs.dims[1];
    const parents = [], next = [], newScores = [], newSeqs = [];
    for (let b = 0; b < B; ++b) {
      const kept = [];
      if (!finished[b]) {
        // The 2k best continuations of this sentence's k hypotheses.
        const cand = [];
        for (let j = 0; j < k; ++j) {
          if (scores[b][j] === -Infinity) continue;
          const row = lp.subarray((b * k + j) * V, (b * k + j + 1) * V);
          for (let w = 0; w < V; ++w) {
            if (w === padId) continue;
            const s = scores[b][j] + row[w];
            if (cand.length < 2 * k || s > cand[cand.length - 1][0]) {
              cand.push([s, j, w]);
              cand.sort((x, y) => y[0] - x[0]);
              if (cand.length > 2 * k) cand.pop();
            }
          }
        }
        for (const [s, j, w] of cand) {
          const ids = [...seqs[b][j], w];
          if (w === eos || t + 1 >= limit[b]) {
            done[b].push([s / penalty(ids.length), w === eos ? ids.slice(0, -1) : ids]);
          } else {
            kept.push([s, j, w, ids]);
          }
          if (kept.length === k) break;
        }
        if (done[b].length >= k || kept.length === 0 || t + 1 >= limit[b]) finished[b] = true;
      }
      const rs = [], rq = [];
      for (let n = 0; n < k; ++n) {
        if (n < kept.length && !finished[b]) {
          const [s, j, w, ids] = kept[n];
          rs.push(s);
          rq.push(ids);
          parents.push(b * k + j);
          next.push(w);
        } else {
          rs.push(-Infinity);
          rq.push([]);
          parents.push(b * k);
          next.push(eos);
        }
      }
      newScores.push(rs);
      newSeqs.push(rq);
    }
    if (finished.every(Boolean)) break;
    pastK = gatherRows(out.present_k, parents);
    pastV = gatherRows(out.present_v, parents);
    tokens = next;
    scores = newScores;
    seqs = newSeqs;
  }
  return done.map((d) => (d.length ? d.reduce((x, y) => (y[0] > x[0] ? y : x))[1] : []));
}

const { outputs, seconds, latency } = await timeRuns(job.sources, job.batch, job.runs,
  (batch) => translate(batch, job.beam));
writeFileSync(resultPath, JSON.stringify({
  outputs, seconds, latency, load_seconds: loadSeconds,
  peak_rss_bytes: process.resourceUsage().maxRSS * 1024,
}));
