// The module Web Worker that hosts the engine for heed.js in browsers.
// Messages: {id, op: "create" | "translate" | "split" |
// "positionalEncoding", args}; replies {id, result} or
// {id, error, name} (the error's type), {id, progress} while the model
// downloads and, for a translate whose third argument is true, {id, sentence} as
// each sentence is done (the result then comes without its sentences).
// Typed arrays are transferred, not copied.
import { buffersOf, createTranslator } from "./heed.js";

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
      const [text, options, stream] = args;
      const onSentence = stream
        ? (sentence) => self.postMessage({ id, sentence }, buffersOf(sentence))
        : undefined;
      const result = await translator.translate(text, { ...options, onSentence });
      if (stream) {  // the sentences went ahead, their buffers with them
        const { text: t, targetTokenCount, timings } = result;
        self.postMessage({ id, result: { text: t, targetTokenCount, timings } });
      } else {
        self.postMessage({ id, result }, buffersOf(result));
      }
    } else if (op === "split" || op === "positionalEncoding") {
      const result = await translator[op](...args);
      self.postMessage({ id, result }, buffersOf(result));
    } else {
      throw new Error(`heed: unknown worker request '${op}'`);
    }
  } catch (e) {
    self.postMessage({ id, error: e.message, name: e.name });
  }
};
