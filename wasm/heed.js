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

import { holdEngine } from "./hold.js";
import { checkModel, defaultThreads, loadEngine, prepareEngine, readModel, toUrl } from "./load.js";
import { isNode } from "./node.js";
import { checkOptions, checkText, readCallOptions } from "./options.js";
import { createWorkerTranslator } from "./remote.js";
import { abortError, guardCallback, makeQueue } from "./requests.js";
import { prepareSentence, summarise } from "./result.js";

/**
 * Loads the engine and a model. In browsers the engine runs in a module
 * Web Worker by default (worker: true), so the page never blocks; in Node
 * it runs in the calling thread. The API is the same either way.
 */
export async function createTranslator(options = {}) {
  const { model, onProgress, worker, wasmUrl, workerUrl } = checkCreateOptions(options);
  const useWorker = worker ?? (!isNode && typeof Worker !== "undefined");
  const threads = options.threads ?? defaultThreads();
  if (!Number.isInteger(threads) || threads < 1 || threads > 64) {
    throw new RangeError("heed: threads must be a whole number in [1, 64]");
  }
  const where = { wasmUrl: wasmUrl && String(await toUrl(wasmUrl)),
                  workerUrl: workerUrl && await toUrl(workerUrl), threads };
  return useWorker ? createWorkerTranslator(model, onProgress, where)
    : createLocalTranslator(model, onProgress, where);
}

const CREATE_OPTIONS = ["model", "onProgress", "worker", "wasmUrl", "workerUrl", "threads"];

// createTranslator()'s options, refused with a TypeError naming what is
// wrong before anything loads (a misspelt key would otherwise pass
// unnoticed, and a worker would be handed no model at all).
function checkCreateOptions(options) {
  if (options === null || typeof options !== "object") {
    throw new TypeError("heed: createTranslator takes an options object, { model, ... }");
  }
  for (const name of Object.keys(options)) {
    if (!CREATE_OPTIONS.includes(name)) {
      throw new TypeError(`heed: unknown createTranslator option '${name}' (known: ${CREATE_OPTIONS.join(", ")})`);
    }
  }
  checkModel(options.model);
  if (options.onProgress !== undefined && typeof options.onProgress !== "function") {
    throw new TypeError("heed: onProgress must be a function");
  }
  return options;
}

// The engine's limit (Translator::PositionalEncoding).
const MAX_POSITIONS = 4096;

// Throws what an engine call reported: an AbortError when its poll ended
// it, an Error with the engine's message when it failed.
function checked(r) {
  if (r.cancelled) throw abortError();
  if (r.error !== undefined) throw new Error(`heed: ${r.error}`);
}

// The model `bytes` loaded into an engine module, held (holdEngine).
function startEngine(module, bytes, threads) {
  const loaded = module.Engine.load(bytes, threads);
  if (loaded.error !== undefined) throw new Error(`heed: ${loaded.error}`);
  return holdEngine(module, loaded.engine);
}

// A call with a single sentence is one batch, which a second thread cannot
// share, and the threaded engine (atomics, a locked allocator) runs it no
// faster than the single-threaded one, on some CPUs slower
// (docs/performance.md). So a translator with several threads answers such
// calls on the single-threaded engine, and fetches and starts the threaded
// engine (`pooled`, prepareEngine) with its own copy of the model only for
// the first call of several sentences or HTML. Until then it keeps the
// model's bytes (`bytes`) to give it. `engine()` resolves to the threaded
// engine, or to null where it could not start (then one thread from now
// on).
function lazyEngine(pooled, bytes) {
  let started = null, threads = pooled.threads, tried = false, disposed = false;
  return {
    threads: () => threads,
    heapBytes: () => started?.heapBytes() ?? 0,
    async engine() {
      if (tried) return started;
      tried = true;
      let module = null;
      try {
        module = await pooled.start();
        if (!disposed) started = startEngine(module, bytes, threads);
      } catch {
        threads = 1;  // not served, or no room for a second model copy
      }
      if (!started) module?.heedWorkers?.().forEach((w) => w.terminate());
      bytes = null;
      return started;
    },
    dispose() {
      disposed = true;
      started?.dispose();
      bytes = null;
    },
  };
}

async function createLocalTranslator(model, onProgress, { wasmUrl, threads }) {
  const [{ engine: singleModule }, pooled, bytes] = await Promise.all([
    loadEngine(wasmUrl, 1),
    threads > 1 ? prepareEngine(wasmUrl, threads) : null,
    readModel(model, onProgress)]);
  const single = startEngine(singleModule, bytes, 1);
  // Threads asked for and served: the threaded engine, when a call needs it.
  const wide = pooled?.threads > 1 ? lazyEngine(pooled, bytes) : null;
  let disposed = false;
  const { live } = single;
  const stopping = () => disposed;
  const queue = makeQueue();

  // The engine for `text`: the threaded one where its sentences can be
  // decoded at once.
  const pick = async (text, rest) => {
    if (!wide || wide.threads() === 1) return single;
    if (!rest.html && single.use((e) => e.split(text)).filter((s) => s.sentence).length < 2) return single;
    const engine = await wide.engine();
    live();  // throws if disposed while the engine was starting
    return engine ?? single;
  };
  // Threads the call ran on, for the result.
  const threadsOf = (engine) => (engine === single ? 1 : wide.threads());
  const running = () => wide?.threads() ?? 1;
  const heapBytes = () => single.heapBytes() + (wide?.heapBytes() ?? 0);

  return {
    translate(text, options = {}) {
      let call;
      try {
        call = readCallOptions(options);
      } catch (e) {
        return Promise.reject(e);
      }
      const { signal, onSentence, rest } = call;
      return queue(signal, async () => {
        live();
        checkText(text);
        const guard = onSentence && guardCallback(onSentence);
        const each = guard && ((s) => guard.each(prepareSentence(s)));
        // Polled between decoding steps: an abort from a callback (or, in
        // the worker, from the page through shared memory) stops the call.
        const cancelled = (signal || onSentence) && (() => stopping() || Boolean(signal?.aborted));
        const checkedOptions = checkOptions(rest);
        const engine = await pick(text, checkedOptions);
        const r = engine.use((e) => e.translate(text, checkedOptions, each, cancelled));
        live();  // disposed by its own onSentence
        guard?.rethrow();
        checked(r);
        if (!onSentence) r.sentences.forEach(prepareSentence);
        r.threads = threadsOf(engine);
        return summarise(r);
      });
    },
    // The text's result as the JSON document the CLI's --attention-json
    // writes for a line (docs/attention.md): the engine's own writer.
    exportJson(text, options = {}) {
      let call;
      try {
        call = readCallOptions(options);
        if (call.onSentence) throw new TypeError("heed: exportJson takes no onSentence");
      } catch (e) {
        return Promise.reject(e);
      }
      const { signal, rest } = call;
      return queue(signal, async () => {
        live();
        checkText(text);
        const cancelled = signal && (() => stopping() || Boolean(signal.aborted));
        const checkedOptions = checkOptions(rest);
        const r = (await pick(text, checkedOptions)).use((e) => e.exportJson(text, checkedOptions, cancelled));
        checked(r);
        return r.json;
      });
    },
    async positionalEncoding(positions) {
      live();
      if (!Number.isInteger(positions) || positions < 0 || positions > MAX_POSITIONS) {
        throw new RangeError(`heed: positions must be a whole number in [0, ${MAX_POSITIONS}]`);
      }
      const r = single.use((e) => e.positional(positions));
      checked(r);
      return { positions, dims: r.dims, values: r.values };
    },
    async split(text) {
      live();
      checkText(text);
      return single.use((e) => e.split(text));
    },
    info() {
      return single.use((e) => {
        const i = e.info();
        return { ...i, heapBytes: heapBytes(), threads: running() };
      });
    },
    // Frees the engines and lets the modules' memory be collected even
    // while this object is still referenced.
    dispose() {
      disposed = true;
      single.dispose();
      wide?.dispose();
    },
  };
}
