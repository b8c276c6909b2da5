// The module worker that hosts the engine for heed.js: a Web Worker in
// browsers, a worker_threads Worker in Node. Messages: {id, op: "create" |
// "translate" | "exportJson" | "split" | "positionalEncoding", args}; replies {id, result}
// or {id, error, name} (the error's type), {id, progress} while the model
// downloads and, for a translate whose third argument is true, {id,
// sentence} as each sentence is done (the result then comes without its
// sentences). A translate's fourth argument, an Int32Array on shared
// memory, is its stop flag: the page sets it to 1 and the engine stops at
// its next decoding step. Typed arrays are transferred, not copied.
import { createTranslator } from "./heed.js";
import { nodeImport } from "./node.js";
import { buffersOf } from "./result.js";

// No top-level await: bundlers build workers as classic scripts by default.
if (globalThis.self) serve(globalThis.self);
else nodeImport("node:worker_threads").then(({ parentPort }) => serve(parentPort));

function serve(port) {
  const post = (message, transfer = []) => port.postMessage(message, transfer);
  let translator = null;

  port.addEventListener("message", async ({ data: { id, op, args } }) => {
    try {
      if (op === "create") {
        translator = await createTranslator({
          model: args[0], wasmUrl: args[1], threads: args[2], worker: false,
          onProgress: (progress) => post({ id, progress }),
        });
        post({ id, result: translator.info() });
      } else if (op === "translate") {
        const [text, options, stream, flag] = args;
        const onSentence = stream ? (sentence) => post({ id, sentence }, buffersOf(sentence)) : undefined;
        const signal = flag ? { get aborted() { return Atomics.load(flag, 0) !== 0; } } : undefined;
        const result = await translator.translate(text, { ...options, onSentence, signal });
        if (stream) {  // the sentences went ahead, their buffers with them
          const { text: t, targetTokenCount, timings, threads } = result;
          post({ id, result: { text: t, targetTokenCount, timings, threads } });
        } else {
          post({ id, result }, buffersOf(result));
        }
      } else if (op === "exportJson" || op === "split" || op === "positionalEncoding") {
        const result = await translator[op](...args);
        post({ id, result }, buffersOf(result));
      } else {
        throw new Error(`heed: unknown worker request '${op}'`);
      }
    } catch (e) {
      post({ id, error: e.message, name: e.name });
    }
  });
}
