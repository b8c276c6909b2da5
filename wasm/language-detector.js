// The web's LanguageDetector interface (W3C WebML CG, "Translator and
// Language Detector APIs") on heed's language detector (langid.js): which
// of the model's languages a text is in, sorted by confidence, with "und"
// for the rest, as the specification's post-processing has it.
// createTranslatorAPI() (translator-api.js) offers it beside Translator.

import { detectLanguages, loadLanguageModel } from "./langid.js";
import { readModel } from "./load.js";
import { INPUT_QUOTA, bestFit, canonicalTag, checkQuota, createModelObject, domString, holdModel, languageCodes,
         measureInputUsage, nextTask, notSupported, readCreateOptions, readDictionary,
         untilAborted } from "./api-common.js";

const UNKNOWN = "und";

/**
 * The language detection model `source` (its JSON as a URL, a path in
 * Node, or bytes), held for one factory: loaded once, by the first
 * create(). Its languages are those it detects ("und" is none of them),
 * `declared` (canonical tag → code) until it is loaded.
 */
export function holdLanguageModel(source, declared) {
  const load = async (onProgress) => loadLanguageModel(await readModel(source, onProgress));
  const languagesOf = (model) => languageCodes(model.languages.filter((code) => code !== UNKNOWN));
  return holdModel(load, languagesOf, declared);
}

// LanguageDetectorCreateCoreOptions' expectedInputLanguages: a sequence of
// strings (a TypeError for what is not one), each validated and
// canonicalized (a RangeError for an invalid tag), without repeats.
function readExpectedLanguages({ expectedInputLanguages: list }) {
  if (list === undefined) return [];
  if (Object(list) !== list || typeof list[Symbol.iterator] !== "function") {
    throw new TypeError("heed: expectedInputLanguages must be a sequence of strings");
  }
  const strings = Array.from(list, domString);
  return [...new Set(strings.map(canonicalTag))];
}

// The spec's "compute language availability" on the model's languages:
// each tag replaced by the model's tag it best fits (en-US → en), without
// repeats; null where a tag fits none.
function fitLanguages(codes, requested) {
  const available = [...codes.keys()];
  const fitted = requested.map((tag) => bestFit(available, tag));
  return fitted.includes(undefined) ? null : [...new Set(fitted)];
}

/** The LanguageDetector interface on the model `holder` holds (holdLanguageModel). */
export function defineLanguageDetector(holder) {
  const key = Symbol("heed language detector");

  // The languages create() was asked for, fitted, or a NotSupportedError.
  const fitOrRefuse = (requested) => () => {
    const fitted = fitLanguages(holder.languages(), requested);
    if (fitted) return fitted;
    const detected = [...holder.languages().keys()].join(", ");
    throw notSupported(`the language detector detects ${detected}, not all of ${requested.join(", ")}`);
  };

  class LanguageDetector {
    #model;
    #expected;
    #life;

    constructor(token, model, expected, life) {
      if (token !== key) throw new TypeError("Illegal constructor");
      this.#model = model;
      this.#expected = expected.length ? Object.freeze(expected) : null;
      this.#life = life;
    }

    // Whether the model detects every expected language: what its load has
    // come to where it does (with none expected, too), else "unavailable".
    // Static methods do not use `this`: they work unbound, as a browser's do.
    static async availability(options) {
      const requested = readExpectedLanguages(readDictionary(options));
      return fitLanguages(holder.languages(), requested) ? holder.availability() : "unavailable";
    }

    static async create(options) {
      const { dict, monitor, signal } = readCreateOptions(options);
      const requested = readExpectedLanguages(dict);
      return createModelObject(holder, { monitor, signal }, {
        what: "language detector",
        fit: fitOrRefuse(requested),
        make: (fitted, life) => new LanguageDetector(key, holder.model(), fitted, life),
      });
    }

    // The model's tags the expected languages fit, frozen; null where
    // create() was given none.
    get expectedInputLanguages() {
      return this.#expected;
    }

    get inputQuota() {
      return INPUT_QUOTA;
    }

    // langid.js's detectLanguages(): the model's languages by confidence,
    // "und" last. It runs in a task of its own, after the caller's code.
    async detect(input, options = {}) {
      const { text, signal, release } = this.#life.call(arguments);
      return untilAborted(signal, async () => {
        await nextTask();
        if (signal.aborted) return null;  // already rejected with the reason
        checkQuota(text);
        return detectLanguages(this.#model, text);
      }).finally(release);
    }

    async measureInputUsage(input, options = {}) {
      return measureInputUsage(this.#life.call(arguments));
    }

    // Aborts what runs and what comes; the model stays, shared by the
    // factory's other detectors.
    destroy() {
      this.#life.destroy();
    }
  }
  return LanguageDetector;
}
