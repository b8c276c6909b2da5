// A translator whose engine runs on a worker (worker.js): a module Web
// Worker in browsers, a worker_threads Worker in Node. Requests go by id
// and their replies are matched back; a running request is stopped through
// shared memory, or where memory cannot be shared by restarting the worker.
import { canShareMemory, isNode, nodeImport } from "./node.js";
import { checkOptions, checkText, readCallOptions } from "./options.js";
import { abortError, guardCallback, makeQueue } from "./requests.js";
import { summarise } from "./result.js";

// The worker's error as the type it was thrown as.
function remoteError({ error, name }) {
  if (name === "TypeError") return new TypeError(error);
  if (name === "RangeError") return new RangeError(error);
  if (name === "AbortError") return new DOMException(error, "AbortError");
  return new Error(error);
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
  w.on("exit", (code) => w.onexit?.(code));  // a Web Worker has no such event (worker.js never closes itself)
  return w;
}

// What each (re)started worker loads: a URL or path, or bytes of our own
// (copied again for a restart, which is needed only without shared memory).
function modelSource(model) {
  if (typeof model === "string" || model instanceof URL) {
    return isNode && !/^(https?|file):/.test(String(model)) ? String(model)
      : new URL(model, globalThis.location?.href).href;
  }
  return model instanceof ArrayBuffer ? model.slice(0) : new Uint8Array(model).slice().buffer;
}

// One worker holding the engine and the model, restarted on request; a
// Node worker keeps the process alive only while a request is pending.
class Connection {
  #worker = null;
  #next = 0;
  #pending = new Map();  // id -> {resolve, reject, onSentence}
  #source;
  #where;
  #onProgress;
  #ended = false;   // end() called: no worker starts again
  #failed = null;   // why the last restart failed, until the next try
  info = null;      // the engine's info(), as of its last reply
  starting = null;  // the restart under way, if any

  constructor(source, where, onProgress) {
    this.#source = source;
    this.#where = where;
    this.#onProgress = onProgress;
  }

  // Spawns the worker and loads the engine and the model into it.
  async start() {
    const { wasmUrl, workerUrl, threads, share } = this.#where;
    const worker = await spawnWorker(workerUrl);
    if (this.#ended) {  // disposed while it was spawned
      worker.terminate();
      throw new Error("heed: this translator was disposed");
    }
    this.#worker = worker;
    const name = workerUrl ?? "worker.js";
    worker.onmessage = ({ data }) => this.#receive(data);
    worker.onerror = (e) => this.#lost(worker, `heed: the worker ${name} failed: ${e.message ?? "it could not be loaded"}`);
    worker.onexit = (code) => this.#lost(worker, `heed: the worker ${name} exited (code ${code})`);
    const bytes = typeof this.#source === "string" || share ? this.#source : this.#source.slice(0);
    this.info = await this.call("create", [bytes, wasmUrl, threads], typeof bytes === "string" ? [] : [bytes]);
  }

  call(op, args, transfer = [], onSentence = null) {
    if (!this.#worker) return Promise.reject(abortError());  // ended by a restart
    return new Promise((resolve, reject) => {
      const id = this.#next++;
      this.#pending.set(id, { resolve, reject, onSentence });
      if (isNode && this.#pending.size === 1) this.#worker.ref();
      try {
        this.#worker.postMessage({ id, op, args }, transfer);
      } catch (e) {  // arguments that cannot be cloned: nothing stays pending
        this.#settle(id);
        reject(e);
      }
    });
  }

  #settle(id) {
    this.#pending.delete(id);
    if (isNode && this.#pending.size === 0) this.#worker?.unref();
  }

  // Ends the worker (and what it was doing); a new one loads the model
  // again for the next request.
  restart() {
    if (this.#ended || this.starting) return;
    this.#stop();
    this.failAll(abortError());
    this.#begin();
  }

  // Ends the worker; what it says after this is not heard.
  #stop() {
    this.#worker?.terminate();
    this.#worker = null;
  }

  // The worker failed or ended by itself: what it was doing rejects, and
  // as after a failed restart, the next request starts a new one (a worker
  // that threw may be in any state, so it is not asked again).
  #lost(worker, message) {
    if (worker !== this.#worker) return;  // one this connection already ended
    const error = new Error(message);
    this.#stop();
    if (!this.#ended && this.info) this.#failed = error;
    this.failAll(error);
  }

  // Starts a worker in the background; requests wait for it (ready()).
  #begin() {
    this.#failed = null;
    this.starting = this.start().then(() => { this.starting = null; }, (e) => {
      this.#stop();
      this.starting = null;
      this.#failed = e;
    });
  }

  // Resolves once a worker is ready. After a restart that failed (the model
  // could not be fetched again, say), each request tries once more, and
  // rejects with why it failed if it fails again.
  async ready() {
    if (this.#ended) throw new Error("heed: this translator was disposed");
    if (!this.starting && this.#failed) this.#begin();
    if (this.starting) await this.starting;
    if (this.#failed) throw new Error(`heed: the engine's worker could not start again: ${this.#failed.message}`);
  }

  // Whether a worker is there to take a request now.
  get up() {
    return !this.starting && !this.#failed && !this.#ended;
  }

  end(error) {
    this.#ended = true;
    this.#stop();
    this.failAll(error);
  }

  failAll(error) {
    for (const p of this.#pending.values()) p.reject(error);
    this.#pending.clear();
    if (isNode) this.#worker?.unref();
  }

  #receive(data) {
    const p = this.#pending.get(data.id);
    if (!p) return;
    if (data.progress) {
      try {
        return this.#onProgress?.(data.progress);
      } catch (e) {  // the caller's onProgress threw: loading fails with it
        if (!this.info) return this.end(e);  // the first: createTranslator rejects
        this.#settle(data.id);  // a restart: it fails, and the next request tries again
        return p.reject(e);
      }
    }
    if (data.sentence) return p.onSentence(data.sentence);
    if (data.state && this.info) Object.assign(this.info, data.state);
    this.#settle(data.id);
    if (data.error !== undefined) p.reject(remoteError(data));
    else p.resolve(data.result);
  }
}

// send()'s result, sent once the worker can take it: in the same tick as
// that check, so that no restart comes between.
async function whenUp(connection, send) {
  do await connection.ready(); while (!connection.up);
  return send();
}

// One translate request on the worker. Sentences arrive (transferred) as
// their batches finish; the result then comes without them and is
// completed here.
async function translateRemote(connection, share, text, rest, signal, onSentence) {
  const flag = share ? new Int32Array(new SharedArrayBuffer(4)) : null;
  // Until it is sent (while a restart is awaited) an abort rejects it at
  // once; then the worker is told through the flag, or restarted.
  let sent = false, rejectWaiting;
  const aborted = new Promise((resolve, reject) => { rejectWaiting = reject; });
  aborted.catch(() => {});
  const onAbort = () => {
    if (!sent) rejectWaiting(abortError());
    else if (flag) Atomics.store(flag, 0, 1);
    else connection.restart();
  };
  signal?.addEventListener("abort", onAbort, { once: true });
  const sentences = [];
  const guard = onSentence && guardCallback(onSentence);
  const send = () => {
    if (signal?.aborted) throw abortError();
    sent = true;
    return connection.call("translate", [text, rest, Boolean(onSentence), flag], [], guard && ((s) => {
      sentences.push(s);
      guard.each(s);
    }));
  };
  try {
    const waiting = whenUp(connection, send);
    waiting.catch(() => {});
    const r = await Promise.race([waiting, aborted]);
    if (!onSentence) return r;
    guard.rethrow();
    r.sentences = sentences;
    return summarise(r);
  } finally {
    signal?.removeEventListener("abort", onAbort);
  }
}

export async function createWorkerTranslator(model, onProgress, where) {
  const share = canShareMemory();
  const connection = new Connection(modelSource(model), { ...where, share }, onProgress);
  try {
    await connection.start();
  } catch (e) {  // the worker, and whatever it loaded, must not outlive this
    connection.end(e);
    throw e;
  }
  const queue = makeQueue();
  let disposed = false;
  const live = () => {
    if (disposed) throw new Error("heed: this translator was disposed");
  };
  // A request without a signal of its own. Should another request's abort
  // restart the worker under it, it is asked again of the new one.
  const request = async (op, args) => {
    for (;;) {
      live();
      try {
        return await whenUp(connection, () => connection.call(op, args));
      } catch (e) {
        if (e.name !== "AbortError") throw e;
      }
    }
  };
  return {
    translate(text, options = {}) {
      let call;
      try {
        call = readCallOptions(options);
        checkText(text);
        checkOptions(call.rest);  // here too: what reaches the worker clones
        if (call.signal && typeof call.signal.addEventListener !== "function") {
          throw new TypeError("heed: option signal must be an AbortSignal");
        }
      } catch (e) {
        return Promise.reject(e);
      }
      const { signal, onSentence, rest } = call;
      return queue(signal, async () => {
        live();
        return translateRemote(connection, share, text, rest, signal, onSentence);
      });
    },
    exportJson(text, options = {}) {
      let call;
      try {
        call = readCallOptions(options);
        checkText(text);
        checkOptions(call.rest);
        if (call.onSentence || call.signal) {
          throw new TypeError("heed: exportJson in a worker takes no onSentence or signal");
        }
      } catch (e) {
        return Promise.reject(e);
      }
      return queue(undefined, () => request("exportJson", [text, call.rest]));
    },
    split: async (text) => {
      checkText(text);
      return request("split", [text]);
    },
    positionalEncoding: (positions) => request("positionalEncoding", [positions]),
    info() {
      live();
      return { ...connection.info };
    },
    dispose() {
      if (!disposed) connection.end(new Error("heed: this translator was disposed"));
      disposed = true;
    },
  };
}
