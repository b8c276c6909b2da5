// The module worker that hosts the engine for heed.js: a Web Worker in
// browsers, a worker_threads Worker in Node. Messages: {id, op: "create" |
// "translate" | "exportJson" | "split" | "positionalEncoding", args}; replies {id, result,
// state} (state: info()'s heapBytes and threads, as they are now) or {id,
// error, name} (the error's type), {id, progress} while the model
// downloads and, for a translate whose third argument is true, {id,
// sentence} as each sentence is done (the result then comes without its
// sentences). A translate's fourth argument, an Int32Array on shared
// memory, is its stop flag: the page sets it to 1 and the engine stops at
// its next decoding step. Typed arrays are transferred, not copied.
import { createTranslator } from "./heed.js";
import { nodeImport } from "./node.js";
import { buffersOf, SUMMARISED } from "./result.js";

// No top-level await: bundlers build workers as classic scripts by default.
if (globalThis.self) serve(globalThis.self);
else nodeImport("node:worker_threads").then(({ parentPort }) => serve(parentPort));

function serve(port) {
  const post = (message, transfer = []) => port.postMessage(message, transfer);
  let translator = null;
  // A reply, with what info() reports that changes: the caller's info()
  // reads it without a request of its own.
  const reply = (id, result, transfer = []) => {
    const { heapBytes, threads } = translator.info();
    post({ id, result, state: { heapBytes, threads } }, transfer);
  };

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
        if (stream) {
          // The sentences went ahead, their buffers with them; the caller
          // derives the rest of the sentences' fields from them again.
          const whole = { ...result };
          for (const name of ["sentences", ...SUMMARISED]) delete whole[name];
          reply(id, whole);
        } else {
          reply(id, result, buffersOf(result));
        }
      } else if (op === "exportJson" || op === "split" || op === "positionalEncoding") {
        const result = await translator[op](...args);
        reply(id, result, buffersOf(result));
      } else {
        throw new Error(`heed: unknown worker request '${op}'`);
      }
    } catch (e) {
      // Whatever was thrown, the caller's promise rejects.
      post({ id, error: String(e?.message ?? e), name: e?.name });
    }
  });
}
