// heed as an ES module: translate in the browser or in Node, offline, and
// read back every attention map.
//
//   import { createTranslator } from "heed";
//   const t = await createTranslator({ model: "models/heed-en-de.heed" });
//   const r = await t.translate("Ein Hund läuft.", { to: "en", attention: true });
//
// The engine is heed's C++ core compiled to WebAssembly (heed_engine.wasm).
// Requests run one at a time, in order; errors reject with an Error whose
// message says what is wrong, and the translator keeps working.

import createHeedEngine from "./heed_engine.js";
import { nodeImport } from "./node.js";
import { checkCallback, checkOptions, checkText } from "./options.js";
import { prepareSentence, summarise } from "./result.js";

const isNode = typeof process !== "undefined" && !!process.versions?.node;

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
async function toUrl(value) {
  if (value instanceof URL || /^[a-z][a-z0-9+.-]*:/i.test(String(value))) return new URL(value);
  if (!isNode) return new URL(value, globalThis.location?.href);
  const { pathToFileURL } = await nodeImport("node:url");
  return pathToFileURL(value);
}

// How many threads a translator decodes on when the caller does not say:
// several where the threaded engine can run (a cross-origin isolated page,
// which has SharedArrayBuffer), one elsewhere and in Node (as natively).
function defaultThreads() {
  if (isNode || globalThis.crossOriginIsolated !== true) return 1;
  return Math.max(1, Math.min(4, globalThis.navigator?.hardwareConcurrency ?? 1));
}

// The threaded engine (heed_engine_threads.{js,wasm}), beside the
// single-threaded one; imported by a computed address, so bundles leave it
// out and fall back to one thread.
async function importThreadedEngine(url, threads) {
  const js = new URL("heed_engine_threads.js", url);
  const { default: create } = await nodeImport(js.href);
  const options = { heedPoolSize: threads - 1 };
  if (isNode) {
    // The pool's workers are CommonJS; in this "type": "module" package
    // Node reads them as such only under .cjs.
    const { fileURLToPath } = await nodeImport("node:url");
    options.locateFile = (name) => fileURLToPath(new URL(name.replace(/\.js$/, ".cjs"), js));
  }
  return { create, options, url: new URL("heed_engine_threads.wasm", url) };
}

// The engine module, with `threads` threads when that many can run (its
// `threads` says how many it has).
async function loadEngine(wasmUrl, threads) {
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
  if (threads > 1 && typeof SharedArrayBuffer === "function") {
    try {
      ({ create, options, url } = await importThreadedEngine(url, threads));
    } catch {
      threads = 1;  // not served (a bundle): the single-threaded engine
    }
  } else {
    threads = 1;
  }
  const wasmBinary = await engineBytes(url);
  // Emscripten reports a module it cannot compile through onAbort.
  const engine = await new Promise((resolve, reject) => {
    const fail = (what) => reject(new Error(`heed: cannot start the engine from ${url}: ${what}`));
    create({ ...options, wasmBinary, onAbort: fail }).then(resolve, (e) => fail(e?.message ?? e));
  });
  // Idle pool workers must not keep Node running.
  if (isNode) engine.heedWorkers?.().forEach((w) => w.unref());
  return { engine, threads };
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

async function readModel(model, onProgress) {
  if (model instanceof Uint8Array) return model;
  if (model instanceof ArrayBuffer) return new Uint8Array(model);
  if (typeof model !== "string" && !(model instanceof URL)) {
    throw new TypeError("heed: model must be a URL, an ArrayBuffer or a Uint8Array");
  }
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

// The user's onSentence runs inside a call that must not be unwound by it
// (the engine's, or the worker's message loop): what it throws is kept,
// later sentences are not handed to it, and rethrow() throws it afterwards.
function guardCallback(onSentence) {
  let thrown = null, index = 0;
  return {
    each(sentence) {
      try {
        if (!thrown) onSentence(sentence, index++);
      } catch (e) {
        thrown = { e };
      }
    },
    rethrow() {
      if (thrown) throw thrown.e;
    },
  };
}

// The worker's error as the type it was thrown as.
function remoteError({ error, name }) {
  if (name === "TypeError") return new TypeError(error);
  if (name === "RangeError") return new RangeError(error);
  if (name === "AbortError") return new DOMException(error, "AbortError");
  return new Error(error);
}

function abortError() {
  return new DOMException("heed: the request was cancelled", "AbortError");
}

// Lets timers and events run, so an abort from a timer reaches the
// requests still queued behind a running one.
function yieldToEventLoop() {
  return new Promise((resolve) => (isNode ? setImmediate(resolve) : setTimeout(resolve, 0)));
}

// Runs requests one at a time, in order; a request whose signal aborts
// before it starts is rejected without running.
function makeQueue() {
  let tail = Promise.resolve();
  return (signal, job) => {
    const run = tail.then(yieldToEventLoop).then(() => {
      if (signal?.aborted) throw abortError();
      return job();
    });
    tail = run.catch(() => {});
    return run;
  };
}

// Whether a worker can be told to stop mid-request through shared memory
// (browsers allow SharedArrayBuffer only in cross-origin isolated pages).
function canShareMemory() {
  return typeof SharedArrayBuffer === "function" && (isNode || globalThis.crossOriginIsolated === true);
}

// A module worker running worker.js: a Web Worker, or in Node a
// worker_threads Worker given the same interface (and kept from holding the
// process open while no request is pending).
async function spawnWorker(workerUrl) {
  if (!isNode) {
    // This literal form is what Vite and webpack look for to bundle the
    // worker with its imports.
    return workerUrl ? new Worker(workerUrl, { type: "module" })
      : new Worker(new URL("./worker.js", import.meta.url), { type: "module" });
  }
  const { Worker: NodeWorker } = await nodeImport("node:worker_threads");
  const here = import.meta.url;  // not the literal form: a bundler would copy worker.js unbundled
  const w = new NodeWorker(workerUrl ?? new URL("./worker.js", here));
  w.unref();
  w.on("message", (data) => w.onmessage?.({ data }));
  w.on("error", (e) => w.onerror?.(e));
  return w;
}

/**
 * Loads the engine and a model. In browsers the engine runs in a module
 * Web Worker by default (worker: true), so the page never blocks; in Node
 * it runs in the calling thread. The API is the same either way.
 */
export async function createTranslator({ model, onProgress, worker, wasmUrl, workerUrl, threads } = {}) {
  const useWorker = worker ?? (!isNode && typeof Worker !== "undefined");
  threads ??= defaultThreads();
  if (!Number.isInteger(threads) || threads < 1 || threads > 64) {
    throw new RangeError("heed: threads must be a whole number in [1, 64]");
  }
  const where = { wasmUrl: wasmUrl && String(await toUrl(wasmUrl)),
                  workerUrl: workerUrl && await toUrl(workerUrl), threads };
  return useWorker ? createWorkerTranslator(model, onProgress, where)
    : createLocalTranslator(model, onProgress, where);
}

async function createWorkerTranslator(model, onProgress, { wasmUrl, workerUrl, threads }) {
  const share = canShareMemory();
  // What each (re)started worker loads: a URL or path, or bytes of our own
  // (copied again for a restart, which is needed only without shared memory).
  let source;
  if (typeof model === "string" || model instanceof URL) {
    source = isNode && !/^(https?|file):/.test(String(model)) ? String(model)
      : new URL(model, globalThis.location?.href).href;
  } else {
    source = model instanceof ArrayBuffer ? model.slice(0) : new Uint8Array(model).slice().buffer;
  }
  let w = null, next = 0, info = null, starting = null, disposed = false;
  const pending = new Map();
  const call = (op, args, transfer = [], onSentence = null) => new Promise((resolve, reject) => {
    const id = next++;
    pending.set(id, { resolve, reject, onSentence });
    if (isNode && pending.size === 1) w.ref();
    w.postMessage({ id, op, args }, transfer);
  });
  const settle = (id) => {
    pending.delete(id);
    if (isNode && pending.size === 0) w?.unref();
  };
  const start = async () => {
    w = await spawnWorker(workerUrl);
    w.onmessage = ({ data }) => {
      const p = pending.get(data.id);
      if (!p) return;
      if (data.progress) return onProgress?.(data.progress);
      if (data.sentence) return p.onSentence(data.sentence);
      settle(data.id);
      if (data.error !== undefined) p.reject(remoteError(data));
      else p.resolve(data.result);
    };
    w.onerror = (e) => failAll(new Error(`heed: the worker ${workerUrl ?? "worker.js"} failed: ${e.message ?? "it could not be loaded"}`));
    const bytes = typeof source === "string" || share ? source : source.slice(0);
    info = await call("create", [bytes, wasmUrl, threads], typeof bytes === "string" ? [] : [bytes]);
  };
  const failAll = (error) => {
    for (const p of pending.values()) p.reject(error);
    pending.clear();
    if (isNode) w?.unref();
  };
  // Without shared memory a running request is stopped by ending its
  // worker; a new one loads the model again for the next request.
  const restart = () => {
    w.terminate();
    failAll(abortError());
    starting = start().finally(() => { starting = null; });
    starting.catch(() => {});
  };
  await start();
  const queue = makeQueue();
  const live = () => {
    if (disposed) throw new Error("heed: this translator was disposed");
  };
  const translate = async (text, rest, signal, onSentence) => {
    const flag = share ? new Int32Array(new SharedArrayBuffer(4)) : null;
    const onAbort = () => (flag ? Atomics.store(flag, 0, 1) : restart());
    signal?.addEventListener("abort", onAbort, { once: true });
    try {
      if (!onSentence) return await call("translate", [text, rest, false, flag]);
      // Sentences arrive (transferred) as their batches finish; the
      // result comes without them and is completed here.
      const sentences = [];
      const guard = guardCallback(onSentence);
      const r = await call("translate", [text, rest, true, flag], [], (s) => {
        sentences.push(s);
        guard.each(s);
      });
      guard.rethrow();
      r.sentences = sentences;
      return summarise(r);
    } finally {
      signal?.removeEventListener("abort", onAbort);
    }
  };
  const request = async (op, args) => {
    live();
    if (starting) await starting;
    return call(op, args);
  };
  return {
    translate(text, options = {}) {
      const { signal, onSentence, ...rest } = options ?? {};
      return queue(signal, async () => {
        live();
        checkCallback(onSentence);
        if (starting) await starting;
        return translate(text, rest, signal, onSentence);
      });
    },
    split: (text) => request("split", [text]),
    positionalEncoding: (positions) => request("positionalEncoding", [positions]),
    info() {
      live();
      return info;
    },
    dispose() {
      if (!disposed) {
        w.terminate();
        failAll(new Error("heed: this translator was disposed"));
      }
      disposed = true;
    },
  };
}

async function createLocalTranslator(model, onProgress, { wasmUrl, threads }) {
  let [{ engine: engineModule, threads: running }, bytes] =
    await Promise.all([loadEngine(wasmUrl, threads), readModel(model, onProgress)]);
  const loaded = engineModule.Engine.load(bytes, running);
  bytes = null;
  if (loaded.error !== undefined) throw new Error(`heed: ${loaded.error}`);
  let engine = loaded.engine;
  const queue = makeQueue();
  // Runs fn against the engine. A JavaScript exception thrown inside it (a
  // value Embind cannot convert) unwinds the wasm frames without restoring
  // their stack pointer, so it is restored here, or each such call would
  // leak wasm stack until the module fails for good.
  const live = () => {
    if (!engine) throw new Error("heed: this translator was disposed");
  };
  const use = (fn) => {
    live();
    const sp = engineModule.stackSave();
    try {
      return fn(engine);
    } finally {
      engineModule.stackRestore(sp);
    }
  };

  return {
    translate(text, options = {}) {
      const { signal, onSentence, ...rest } = options ?? {};
      return queue(signal, () => {
        live();
        checkCallback(onSentence);
        checkText(text);
        const guard = onSentence && guardCallback(onSentence);
        const each = guard && ((s) => guard.each(prepareSentence(s)));
        // Polled between decoding steps: an abort from a callback (or, in
        // the worker, from the page through shared memory) stops the call.
        const cancelled = signal && (() => signal.aborted);
        const r = use((e) => e.translate(text, checkOptions(rest), each, cancelled));
        guard?.rethrow();
        if (r.cancelled) throw abortError();
        if (r.error !== undefined) throw new Error(`heed: ${r.error}`);
        if (!onSentence) r.sentences.forEach(prepareSentence);
        return summarise(r);
      });
    },
    async positionalEncoding(positions) {
      live();
      if (!Number.isInteger(positions) || positions < 0) {
        throw new Error("heed: positions must be a whole number ≥ 0");
      }
      const r = use((e) => e.positional(positions));
      if (r.error !== undefined) throw new Error(`heed: ${r.error}`);
      return { positions, dims: r.dims, values: r.values };
    },
    async split(text) {
      live();
      checkText(text);
      return use(() => engineModule.splitSentences(text));
    },
    info() {
      return use((e) => {
        const i = e.info();
        return { ...i, heapBytes: engineModule.heapBytes(), threads: running };
      });
    },
    // Frees the engine and lets the module's memory be collected even while
    // this object is still referenced.
    dispose() {
      if (engine) engine.delete();
      engineModule?.heedWorkers?.().forEach((w) => w.terminate());
      engine = null;
      engineModule = null;
    },
  };
}
