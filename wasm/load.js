// What a translator loads: the engine (heed_engine.wasm, or the threaded
// heed_engine_threads.wasm) and the model's bytes, from a URL, a path in
// Node, or the browser's Cache API.
import createHeedEngine from "./heed_engine.js";
import { canShareMemory, importUnbundled, isNode, nodeImport } from "./node.js";

// The engine's bytes, fetched (or read, in Node) here so that a missing or
// broken file rejects at once with its address.
async function engineBytes(wasmUrl) {
  try {
    if (isNode && wasmUrl.protocol === "file:") {
      const { readFile } = await nodeImport("node:fs/promises");
      return await readFile(wasmUrl);
    }
    const response = await fetch(wasmUrl);
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    return new Uint8Array(await response.arrayBuffer());
  } catch (e) {
    throw new Error(`heed: cannot load the engine from ${wasmUrl}: ${e.message}`);
  }
}

// An address given by the caller: a URL, or (in Node) a file path.
export async function toUrl(value) {
  if (value instanceof URL || /^[a-z][a-z0-9+.-]*:/i.test(String(value))) return new URL(value);
  if (!isNode) return new URL(value, globalThis.location?.href);
  const { pathToFileURL } = await nodeImport("node:url");
  return pathToFileURL(value);
}

// How many threads a translator decodes on when the caller does not say:
// several where the threaded engine can run (a cross-origin isolated page,
// which has SharedArrayBuffer), one elsewhere and in Node (as natively).
export function defaultThreads() {
  if (isNode || !canShareMemory()) return 1;
  return Math.max(1, Math.min(4, globalThis.navigator?.hardwareConcurrency ?? 1));
}

// The threaded engine (heed_engine_threads.{js,wasm}), beside the
// single-threaded one; imported by a computed address, so bundles leave it
// out and fall back to one thread.
async function importThreadedEngine(url, threads) {
  const js = new URL("heed_engine_threads.js", url);
  const { default: create } = await importUnbundled(js.href);
  const options = { heedPoolSize: threads - 1 };
  if (isNode) {
    // The pool's workers are CommonJS; in this "type": "module" package
    // Node reads them as such only under .cjs.
    const { fileURLToPath } = await nodeImport("node:url");
    options.locateFile = (name) => fileURLToPath(new URL(name.replace(/\.js$/, ".cjs"), js));
  }
  return { create, options, url: new URL("heed_engine_threads.wasm", url) };
}

// The engine module's glue, with `threads` threads when that many can run
// (its `threads` says how many it has), and `start()`, which fetches and
// compiles the WebAssembly and resolves to the module. The glue is small;
// the WebAssembly is what costs, so a caller can know the thread count now
// and start the engine when it needs it.
export async function prepareEngine(wasmUrl, threads) {
  let url = wasmUrl ? await toUrl(wasmUrl) : new URL("./heed_engine.wasm", import.meta.url);
  if (isNode) {
    // Emscripten's ES module output reads __dirname and require, which
    // Node's ES modules lack.
    const { createRequire } = await nodeImport("node:module");
    const { fileURLToPath } = await nodeImport("node:url");
    const here = import.meta.url;  // not the literal form: bundlers would resolve "."
    globalThis.__dirname ??= fileURLToPath(new URL(".", here));
    globalThis.require ??= createRequire(import.meta.url);
  }
  let create = createHeedEngine, options = {};
  if (threads > 1 && canShareMemory()) {
    try {
      ({ create, options, url } = await importThreadedEngine(url, threads));
    } catch {
      threads = 1;  // not served (a bundle): the single-threaded engine
    }
  } else {
    threads = 1;
  }
  const start = async () => {
    const wasmBinary = await engineBytes(url);
    // Emscripten reports a module it cannot compile through onAbort.
    const engine = await new Promise((resolve, reject) => {
      const fail = (what) => reject(new Error(`heed: cannot start the engine from ${url}: ${what}`));
      create({ ...options, wasmBinary, onAbort: fail }).then(resolve, (e) => fail(e?.message ?? e));
    });
    // Idle pool workers must not keep Node running.
    if (isNode) engine.heedWorkers?.().forEach((w) => w.unref());
    return engine;
  };
  return { threads, start };
}

// The engine module, started (prepareEngine).
export async function loadEngine(wasmUrl, threads) {
  const prepared = await prepareEngine(wasmUrl, threads);
  return { engine: await prepared.start(), threads: prepared.threads };
}

// The model's response: from the Cache API when the kept copy is still the
// server's (a 304) or the network is down, else downloaded and kept.
async function fetchKept(model) {
  const cache = globalThis.caches ? await globalThis.caches.open("heed-models").catch(() => null) : null;
  const kept = cache ? await cache.match(String(model)) : undefined;
  const etag = kept?.headers.get("etag");
  let fresh;
  try {
    fresh = await fetch(model, etag ? { headers: { "if-none-match": etag } } : {});
  } catch (e) {
    if (kept) return { response: kept, fromCache: true };  // offline
    throw new Error(`heed: cannot fetch model ${model}: ${e.message}`);
  }
  if (kept && (fresh.status === 304 || !fresh.ok)) return { response: kept, fromCache: true };
  if (!fresh.ok) throw new Error(`heed: cannot fetch model ${model}: HTTP ${fresh.status}`);
  if (cache) await cache.put(String(model), fresh.clone()).catch(() => {});
  return { response: fresh, fromCache: false };
}

// The type of a value as its realm's built-ins name it: an ArrayBuffer or
// Uint8Array from an iframe, a vm context or jsdom is one as well, where
// instanceof says no.
const tag = (v) => Object.prototype.toString.call(v).slice(8, -1);

// Throws unless `model` is one of the forms readModel() takes.
export function checkModel(model) {
  if (typeof model !== "string" && !(model instanceof URL) && tag(model) !== "ArrayBuffer" &&
      tag(model) !== "Uint8Array") {
    throw new TypeError("heed: model must be a URL, an ArrayBuffer or a Uint8Array");
  }
}

export async function readModel(model, onProgress) {
  checkModel(model);
  if (model instanceof Uint8Array) return model;
  // Another realm's bytes as this realm's, for the engine.
  if (tag(model) === "Uint8Array" || tag(model) === "ArrayBuffer") return new Uint8Array(model);
  if (isNode && !/^https?:/.test(String(model))) {
    const { open } = await nodeImport("node:fs/promises");
    const { constants } = await nodeImport("node:fs");
    const path = /^file:/.test(String(model)) ? new URL(String(model)) : model;
    // Opened without blocking and checked, so a FIFO or a device such as
    // /dev/zero is refused at once instead of waiting or growing forever.
    const file = await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
    let bytes;
    try {
      if (!(await file.stat()).isFile()) throw new Error(`heed: model '${model}' is not a regular file`);
      bytes = new Uint8Array(await file.readFile());
    } finally {
      await file.close();
    }
    onProgress?.({ loaded: bytes.length, total: bytes.length });
    return bytes;
  }
  const { response, fromCache } = await fetchKept(model);
  const total = Number(response.headers.get("content-length")) || 0;
  const reader = response.body.getReader();
  const chunks = [];
  let loaded = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    loaded += value.length;
    onProgress?.({ loaded, total, fromCache });
  }
  const bytes = new Uint8Array(loaded);
  let at = 0;
  for (const c of chunks) {
    bytes.set(c, at);
    at += c.length;
  }
  return bytes;
}
