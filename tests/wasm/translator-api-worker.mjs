// heed's Translator and LanguageDetector APIs in a module Web Worker:
// installed on the worker's global, created, asked to translate, stream
// and detect what the page sends.
import { install } from "/build/wasm/dist/translator-api.js";

// The detector's availability before and after its create(), and its
// results for each text.
async function detectAll(texts) {
  const options = { expectedInputLanguages: ["en-US", "de"] };
  const availability = [await LanguageDetector.availability(options)];
  const detector = await LanguageDetector.create(options);
  availability.push(await LanguageDetector.availability(options));
  const detected = [];
  for (const text of texts) detected.push(await detector.detect(text));
  return { availability, expected: detector.expectedInputLanguages, detected };
}

self.onmessage = async ({ data: { model, languageModel, texts } }) => {
  try {
    const before = typeof self.Translator;
    const Translator = install(self, { model, languageModel });
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
                       languages: [t.sourceLanguage, t.targetLanguage], translated, streamed,
                       detector: await detectAll(texts) });
  } catch (e) {
    self.postMessage({ error: `${e.name}: ${e.message}` });
  }
};
