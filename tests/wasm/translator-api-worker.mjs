// heed's Translator API in a module Web Worker: installed on the worker's
// global, created, asked to translate and stream what the page sends.
import { install } from "/build/wasm/dist/translator-api.js";

self.onmessage = async ({ data: { model, texts } }) => {
  try {
    const before = typeof self.Translator;
    const Translator = install(self, { model });
    const pair = { sourceLanguage: "en-US", targetLanguage: "de" };
    const availability = [await Translator.availability(pair)];
    const progress = [];
    const t = await Translator.create({ ...pair, monitor: (m) => { m.ondownloadprogress = (e) => progress.push(e.loaded); } });
    availability.push(await Translator.availability(pair));
    const translated = [], streamed = [];
    for (const text of texts) {
      translated.push(await t.translate(text));
      const chunks = [];
      for await (const chunk of t.translateStreaming(text)) chunks.push(chunk);
      streamed.push(chunks);
    }
    self.postMessage({ before, installed: self.Translator === Translator, availability, progress,
                       languages: [t.sourceLanguage, t.targetLanguage], translated, streamed });
  } catch (e) {
    self.postMessage({ error: `${e.name}: ${e.message}` });
  }
};
