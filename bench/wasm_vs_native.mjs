// heed's WebAssembly module against its native build, same machine, same
// run, one thread each: target tokens per second for greedy and beam 4 one
// sentence at a time, beam 4 in batches of 32 (and batched / one at a time
// in wasm), and the time from createTranslator to the first result.
//   node bench/wasm_vs_native.mjs [MODEL] [SENTENCES_FILE] [TO]
// A benchmark, not a test: it prints figures and asserts nothing.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";

const root = new URL("..", import.meta.url).pathname;
const model = process.argv[2] ?? join(root, "models/heed-en-de.heed");
const to = process.argv[4] ?? "de";
const lines = process.argv[3]
  ? readFileSync(process.argv[3], "utf8").split("\n").filter(Boolean).slice(0, 200)
  : Array.from({ length: 100 }, (_, i) => `A dog number ${i} runs in the park with a ball.`);

const t0 = performance.now();
const { createTranslator } = await import(join(root, "build/wasm/dist/heed.js"));
const t = await createTranslator({ model });
await t.translate(lines[0], { to, beam: 1 });
const firstMs = performance.now() - t0;

// Native: the CLI on one thread, timed without its model load by
// subtracting an empty run.
function nativeSeconds(input, args) {
  const run = (text) => {
    const s = performance.now();
    execFileSync(join(root, "build/release/heed"), ["translate", "--model", model, "--to", to, ...args],
      { input: text, stdio: ["pipe", "ignore", "ignore"] });
    return (performance.now() - s) / 1000;
  };
  return run(input) - run("");
}

// One sentence per call (batch 1), then the same sentences in batches of
// 32 (one call per batch), so the two rates count the same tokens.
const oneAtATime = {};
for (const [beam, batch] of [[1, 1], [4, 1], [4, 32]]) {
  let tokens = 0;
  const w0 = performance.now();
  for (let i = 0; i < lines.length; i += batch) {
    const part = lines.slice(i, i + batch).join("\n");
    tokens += (await t.translate(part, { to, beam, maxBatch: batch })).targetTokenCount;
  }
  const wasmS = (performance.now() - w0) / 1000;
  const nativeS = nativeSeconds(lines.join("\n") + "\n", ["--beam", String(beam), "--max-batch", String(batch)]);
  const rate = tokens / wasmS;
  if (batch === 1) oneAtATime[beam] = rate;
  const versus = batch > 1 ? `, wasm batch / one at a time ${(rate / oneAtATime[beam]).toFixed(2)}` : "";
  console.log(`beam ${beam}, batch ${batch}: wasm ${rate.toFixed(0)} tok/s, ` +
              `native ${(tokens / nativeS).toFixed(0)} tok/s, wasm/native ${(nativeS / wasmS).toFixed(2)}${versus}`);
}
console.log(`createTranslator to first result: ${firstMs.toFixed(0)} ms`);
t.dispose();
