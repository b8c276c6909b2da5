// The module Web Worker that hosts the engine for heed.js in browsers.
// Messages: {id, op: "create" | "translate" | "split" |
// "positionalEncoding", args}; replies {id, result} or
// {id, error, name} (the error's type), and {id, progress} while the model
// downloads.
import { createTranslator } from "./heed.js";

let translator = null;

self.onmessage = async ({ data: { id, op, args } }) => {
  try {
    if (op === "create") {
      translator = await createTranslator({
        model: args[0], worker: false,
        onProgress: (progress) => self.postMessage({ id, progress }),
      });
      self.postMessage({ id, result: translator.info() });
    } else if (op === "translate") {
      self.postMessage({ id, result: await translator.translate(...args) });
    } else if (op === "split" || op === "positionalEncoding") {
      self.postMessage({ id, result: await translator[op](...args) });
    } else {
      throw new Error(`heed: unknown worker request '${op}'`);
    }
  } catch (e) {
    self.postMessage({ id, error: e.message, name: e.name });
  }
};
