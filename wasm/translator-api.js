// The web's Translator and Language Detector APIs (W3C WebML CG,
// "Translator and Language Detector APIs") on heed: the same calls a page
// makes to a browser's built-in translator and language detector,
// answered offline by heed's models.
//
//   import { createTranslatorAPI } from "heed/translator-api";
//   const { Translator, LanguageDetector } = createTranslatorAPI({
//     model: "models/heed-en-de-int8.heed", languageModel: "models/langid-en-de.json" });
//   const t = await Translator.create({ sourceLanguage: "en", targetLanguage: "de" });
//   await t.translate("A dog runs.");  // "Ein Hund rennt."
//   const d = await LanguageDetector.create();
//   await d.detect("Ein Hund rennt.");  // [{ detectedLanguage: "de", … }, { detectedLanguage: "und", … }]
//
// install(globalThis, { model, languageModel }) defines globalThis.Translator
// and globalThis.LanguageDetector where there are none (a polyfill, by
// choice). Each factory loads each model once, on the first create() that
// needs it, and the objects it creates share it.

import { createTranslator } from "./heed.js";
import { INPUT_QUOTA, anySignal, asDomError, bestFit, canonicalTag, checkQuota, createModelObject, domString,
         holdModel, languageCodes, measureInputUsage, notSupported, readCreateOptions, readDictionary,
         untilAborted } from "./api-common.js";
import { defineLanguageDetector, holdLanguageModel } from "./language-detector.js";

// heed's own translate option: { html: true } reads the input as HTML
// (tags kept, text translated, docs/html.md).
function readHtml(options) {
  const html = options?.html ?? false;
  if (typeof html !== "boolean") throw new TypeError("heed: option html must be true or false");
  return html;
}

// Text with nothing to translate: whitespace, control and format
// characters only. It is returned as it is.
const NOTHING_TO_TRANSLATE = /^[\s\p{Cc}\p{Cf}]*$/u;

/**
 * The interfaces bound to heed's models: { Translator, LanguageDetector }.
 * model, worker, wasmUrl, workerUrl and threads are createTranslator()'s;
 * languageModel is the language detector's (langid JSON: a URL, a path in
 * Node, or its bytes); without it there is no LanguageDetector. languages
 * are the models', used until each is loaded (by default those of heed's
 * shipped English↔German models); from then on each model's own decide.
 */
export function createTranslatorAPI({ model, languageModel, languages = ["en", "de"], worker, wasmUrl, workerUrl,
                                      threads } = {}) {
  if (model === undefined) throw new TypeError("heed: createTranslatorAPI needs a model");
  const declared = languageCodes(Intl.getCanonicalLocales(languages));
  const holder = holdModel((onProgress) => createTranslator({ model, worker, wasmUrl, workerUrl, threads, onProgress }),
                           (translator) => languageCodes(translator.info().languages), declared);
  const api = { Translator: defineTranslator(holder) };
  if (languageModel !== undefined) {
    api.LanguageDetector = defineLanguageDetector(holdLanguageModel(languageModel, declared));
  }
  return api;
}

/**
 * Defines target.Translator and target.LanguageDetector (where options
 * have a languageModel), as a browser does (writable, configurable, not
 * enumerable), each only where the target has none; returns the
 * Translator in effect there.
 */
export function install(target = globalThis, options) {
  for (const [name, value] of Object.entries(createTranslatorAPI(options))) {
    if (target[name] === undefined) Object.defineProperty(target, name, { value, writable: true, configurable: true });
  }
  return target.Translator;
}

// ---- language tags ----

// TranslatorCreateCoreOptions: both languages required (TypeError), then
// validated and canonicalized (RangeError).
function readLanguages(options) {
  const read = (name) => {
    if (options[name] === undefined) throw new TypeError(`heed: ${name} is required`);
    return domString(options[name]);
  };
  const sourceLanguage = read("sourceLanguage"), targetLanguage = read("targetLanguage");
  return { sourceLanguage: canonicalTag(sourceLanguage), targetLanguage: canonicalTag(targetLanguage) };
}

// The spec's "compute translator options availability": a pair of the
// model's languages the tags fit (taking the model's tags), else the
// identity translation where both tags fit one language, else null.
function matchArc(codes, source, target) {
  for (const from of codes.keys()) {
    for (const to of codes.keys()) {
      if (from !== to && bestFit([from], source) && bestFit([to], target)) {
        return { source: from, target: to, to: codes.get(to) };
      }
    }
  }
  if (bestFit([source], target) || bestFit([target], source)) return { source, target, identity: true };
  return null;
}

// ---- translation ----

// Turns heed's sentences, each with its segment of split(input), into
// chunks that join to heed's text: the layout between sentences as it is,
// the parts of a sentence too long for the model joined by a space.
function chunker(segments, emit) {
  let next = 0;  // the first segment not yet emitted
  const copyLayout = (until) => {
    for (; next < until; ++next) if (!segments[next].sentence) emit(segments[next].text);
  };
  return {
    sentence(s) {
      if (s.segment < next) return emit(` ${s.text}`);
      copyLayout(s.segment);
      next = s.segment + 1;
      emit(s.text);
    },
    end: () => copyLayout(segments.length),
  };
}

// ---- the Translator interface ----

function defineTranslator(holder) {
  const key = Symbol("heed translator");

  class Translator {
    #arc;
    #heed;
    #life;

    constructor(token, arc, heed, life) {
      if (token !== key) throw new TypeError("Illegal constructor");
      this.#arc = arc;
      this.#heed = heed;
      this.#life = life;
    }

    // Static methods do not use `this`: they work unbound, as a browser's do.
    static async availability(options) {
      const { sourceLanguage, targetLanguage } = readLanguages(readDictionary(options));
      const arc = matchArc(holder.languages(), sourceLanguage, targetLanguage);
      if (!arc) return "unavailable";
      return arc.identity ? "available" : holder.availability();
    }

    static async create(options) {
      const { dict, monitor, signal } = readCreateOptions(options);
      const { sourceLanguage, targetLanguage } = readLanguages(dict);
      return createModelObject(holder, { monitor, signal }, {
        what: "translator",
        fit: () => {
          const arc = matchArc(holder.languages(), sourceLanguage, targetLanguage);
          if (!arc) throw notSupported(`no translation from ${sourceLanguage} to ${targetLanguage}`);
          return arc;
        },
        needsModel: (arc) => !arc.identity,
        make: (arc, life) => new Translator(key, arc, holder.model(), life),
      });
    }

    get sourceLanguage() {
      return this.#arc.source;
    }

    get targetLanguage() {
      return this.#arc.target;
    }

    get inputQuota() {
      return INPUT_QUOTA;
    }

    async translate(input, options = {}) {
      const { text, signal, release } = this.#life.call(arguments);
      try {
        const html = readHtml(options);
        return await untilAborted(signal, () => this.#translate(text, signal, html));
      } finally {
        release();
      }
    }

    // Chunks that join to translate()'s text, each sentence as heed
    // finishes it.
    translateStreaming(input, options = {}) {
      const { text, signal, release } = this.#life.call(arguments);
      let html;
      try {
        html = readHtml(options);
        if (signal.aborted) throw signal.reason;
      } catch (e) {
        release();
        throw e;
      }
      const cancelled = new AbortController();
      const live = () => !cancelled.signal.aborted;
      return new ReadableStream({
        start: (controller) => {
          const emit = (chunk) => chunk && live() && controller.enqueue(chunk);
          const either = anySignal([signal, cancelled.signal]);
          untilAborted(signal, () => this.#stream(text, either.signal, emit, html))
            .then(() => live() && controller.close(), (e) => live() && controller.error(e))
            .finally(() => {
              either.release();
              release();
            });
        },
        cancel: () => cancelled.abort(),
      });
    }

    async measureInputUsage(input, options = {}) {
      return measureInputUsage(this.#life.call(arguments));
    }

    // Aborts what runs and what comes; the model stays, shared by the
    // factory's other translators.
    destroy() {
      this.#life.destroy();
    }

    // The checks before heed: the quota, then text left as it is.
    #passThrough(text) {
      checkQuota(text);
      return this.#arc.identity || NOTHING_TO_TRANSLATE.test(text);
    }

    #heedOptions(signal, onSentence, html = false) {
      return { to: this.#arc.to, signal, maxInputBytes: INPUT_QUOTA, onSentence, ...(html && { html }) };
    }

    async #translate(text, signal, html) {
      if (this.#passThrough(text)) return text;
      const r = await this.#heed.translate(text.toWellFormed?.() ?? text, this.#heedOptions(signal, undefined, html))
        .catch((e) => { throw asDomError(e); });
      return r.text;
    }

    // HTML comes whole: its markup is placed once every block is done.
    async #stream(text, signal, emit, html) {
      if (html) return emit(await this.#translate(text, signal, true));
      if (this.#passThrough(text)) return emit(text);
      const wellFormed = text.toWellFormed?.() ?? text;
      try {
        const chunks = chunker(await this.#heed.split(wellFormed), emit);
        await this.#heed.translate(wellFormed, this.#heedOptions(signal, chunks.sentence));
        chunks.end();
      } catch (e) {
        throw asDomError(e);
      }
    }
  }
  return Translator;
}
