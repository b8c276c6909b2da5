// heed's WebAssembly module against its native build, same machine, same
// run: target tokens per second for greedy and beam 4, one sentence at a
// time, and the time from createTranslator to the first result.
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

for (const beam of [1, 4]) {
  let tokens = 0;
  const w0 = performance.now();
  for (const line of lines) tokens += (await t.translate(line, { to, beam })).targetTokenCount;
  const wasmS = (performance.now() - w0) / 1000;
  // Native: the CLI, one line per call batch of 1 (--max-batch 1), timed
  // without its model load by subtracting an empty run.
  const run = (input) => {
    const s = performance.now();
    execFileSync(join(root, "build/release/heed"), ["translate", "--model", model, "--to", to,
      "--beam", String(beam), "--max-batch", "1"], { input, stdio: ["pipe", "ignore", "ignore"] });
    return (performance.now() - s) / 1000;
  };
  const nativeS = run(lines.join("\n") + "\n") - run("");
  console.log(`beam ${beam}: wasm ${(tokens / wasmS).toFixed(0)} tok/s, ` +
              `native ${(tokens / nativeS).toFixed(0)} tok/s, wasm/native ${(nativeS / wasmS).toFixed(2)}`);
}
console.log(`createTranslator to first result: ${firstMs.toFixed(0)} ms`);
t.dispose();
