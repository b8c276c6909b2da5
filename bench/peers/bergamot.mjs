// Bergamot's WebAssembly engine (npm @browsermt/bergamot-translator, the
// engine of Firefox's translations) in Node: its worker script in a
// worker thread, driven through the messages its own translator.js sends.
//   const b = await loadBergamot({ dir, from, to });  // marian.py export's OUT
//   const outputs = await b.translate(["<2de> A man is walking."]);
//   b.close();
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { Worker } from "node:worker_threads";

const require = createRequire(import.meta.url);

// The package's worker is a classic script (require, __dirname) inside an
// ES-module package, so Node would load it as a module: it runs as an
// evaluated CommonJS script with its own folder passed in instead.
function startWorker() {
  const file = require.resolve("@browsermt/bergamot-translator/worker/translator-worker.js");
  const source = readFileSync(file, "utf8");
  const code = `(function (require, __dirname, __filename) {\n${source}\n})` +
    `(require, ${JSON.stringify(dirname(file))}, ${JSON.stringify(file)});`;
  return new Worker(code, { eval: true });
}

/**
 * Starts the engine and loads the model in OUT (model.bin, vocab.src.spm,
 * vocab.trg.spm, optional shortlist.bin and config.yml's options).
 * options: {dir, from, to, config: {key: value} overriding config.yml}.
 */
export async function loadBergamot({ dir, from = "src", to = "trg", config = {} }) {
  const worker = startWorker();
  let next = 1;
  const pending = new Map();
  worker.on("message", ({ id, result, error }) => {
    const p = pending.get(id);
    pending.delete(id);
    if (error) p.reject(Object.assign(new Error(error.message), { stack: error.stack }));
    else p.resolve(result);
  });
  worker.on("error", (e) => { for (const p of pending.values()) p.reject(e); pending.clear(); });
  const call = (name, ...args) => new Promise((resolve, reject) => {
    const id = next++;
    pending.set(id, { resolve, reject });
    worker.postMessage({ id, name, args });
  });
  const buffer = (name) => {
    const b = readFileSync(join(dir, name));
    return b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength);
  };
  const options = {};
  for (const line of readFileSync(join(dir, "config.yml"), "utf8").split("\n")) {
    const m = line.match(/^([\w-]+):\s*(.*)$/);
    if (m) options[m[1]] = m[2];
  }
  Object.assign(options, config);
  let shortlist = new ArrayBuffer(0);
  try { shortlist = buffer("shortlist.bin"); } catch { /* none: every word */ }
  await call("initialize", { cacheSize: 0 });
  await call("loadTranslationModel", { from, to }, {
    model: buffer("model.bin"), shortlist,
    vocabs: [buffer("vocab.src.spm"), buffer("vocab.trg.spm")], config: options,
  });
  return {
    async translate(texts) {
      const out = await call("translate", {
        models: [{ from, to }], texts: texts.map((text) => ({ text, html: false })),
      });
      return out.map((r) => r.target.text);
    },
    close() { return worker.terminate(); },
  };
}
