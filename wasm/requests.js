// How a translator's requests run: one at a time, in order; a request
// aborted before it starts never runs; the caller's onSentence cannot
// unwind the call that hands it sentences.
import { isNode } from "./node.js";

// The user's onSentence runs inside a call that must not be unwound by it
// (the engine's, or the worker's message loop): what it throws is kept,
// later sentences are not handed to it, and rethrow() throws it afterwards.
export function guardCallback(onSentence) {
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

export function abortError() {
  return new DOMException("heed: the request was cancelled", "AbortError");
}

// Lets timers and events run, so an abort from a timer reaches the
// requests still queued behind a running one.
function yieldToEventLoop() {
  return new Promise((resolve) => (isNode ? setImmediate(resolve) : setTimeout(resolve, 0)));
}

// Runs requests one at a time, in order; a request whose signal aborts
// before it starts is rejected at once, not when its turn comes, and never
// runs. (Once started, the job itself answers an abort.)
export function makeQueue() {
  let tail = Promise.resolve();
  return (signal, job) => {
    if (signal?.aborted) return Promise.reject(abortError());
    let started = false;
    const run = tail.then(yieldToEventLoop).then(() => {
      if (signal?.aborted) throw abortError();
      started = true;
      return job();
    });
    tail = run.catch(() => {});
    if (typeof signal?.addEventListener !== "function") return run;
    return new Promise((resolve, reject) => {
      const onAbort = () => started || reject(abortError());
      signal.addEventListener("abort", onAbort, { once: true });
      run.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
    });
  };
}
