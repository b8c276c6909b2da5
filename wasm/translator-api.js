// The web's Translator API (W3C WebML CG, "Translator and Language
// Detector APIs") on heed: the same calls a page makes to a browser's
// built-in translator, answered offline by heed's model.
//
//   import { createTranslatorAPI } from "heed/translator-api";
//   const { Translator } = createTranslatorAPI({ model: "models/heed-en-de-int8.heed" });
//   const t = await Translator.create({ sourceLanguage: "en", targetLanguage: "de" });
//   await t.translate("A dog runs.");  // "Ein Hund rennt."
//
// install(globalThis, { model }) defines globalThis.Translator where there
// is none (a polyfill, by choice). Each factory loads its model once, on
// the first create() that needs it, and its translators share it.

import { createTranslator } from "./heed.js";

// The input a translator takes, in UTF-8 bytes: heed's own default limit
// (maxInputBytes). measureInputUsage() counts the same bytes.
const INPUT_QUOTA = 2 ** 20;

// Progress is reported in steps of 1/65536, as the spec asks; 1 is kept
// for the end, when the model is loaded.
const STEP = 2 ** -16;

// Text with nothing to translate: whitespace, control and format
// characters only. It is returned as it is.
const NOTHING_TO_TRANSLATE = /^[\s\p{Cc}\p{Cf}]*$/u;

/**
 * The Translator interface bound to one heed model: { Translator }.
 * model, worker, wasmUrl, workerUrl and threads are createTranslator()'s;
 * languages are the model's, used until it is loaded (by default those of
 * heed's shipped English↔German model); from then on the model's own
 * (info().languages) decide which pairs are available.
 */
export function createTranslatorAPI({ model, languages = ["en", "de"], worker, wasmUrl, workerUrl, threads } = {}) {
  if (model === undefined) throw new TypeError("heed: createTranslatorAPI needs a model");
  const declared = languageCodes(Intl.getCanonicalLocales(languages));
  const holder = holdModel({ model, worker, wasmUrl, workerUrl, threads }, declared);
  return { Translator: defineTranslator(holder) };
}

/**
 * Defines target.Translator, as a browser does (writable, configurable,
 * not enumerable), only where the target has none; returns the Translator
 * in effect there.
 */
export function install(target = globalThis, options) {
  if (target.Translator === undefined) {
    const { Translator } = createTranslatorAPI(options);
    Object.defineProperty(target, "Translator", { value: Translator, writable: true, configurable: true });
  }
  return target.Translator;
}

// ---- language tags ----

// A language tag as the spec's "validate and canonicalize": a string, in
// ECMA-402's canonical form; a RangeError for what is not a tag.
function canonicalTag(value) {
  try {
    return Intl.getCanonicalLocales(value)[0];
  } catch {
    throw new RangeError(`heed: invalid language tag: ${value}`);
  }
}

// Language codes (heed's "to") by canonical tag; a code that is not a
// language tag is not offered.
function languageCodes(codes) {
  const byTag = new Map();
  for (const code of codes) {
    try {
      byTag.set(canonicalTag(code), code);
    } catch {
      // not a BCP 47 tag
    }
  }
  return byTag;
}

// ECMA-402's LookupMatchingLocaleByPrefix: the tag, then shorter and
// shorter prefixes of it (a singleton goes with the subtag after it).
function lookup(available, requested) {
  let candidate = requested.replace(/-u(?:-[a-z0-9]{2,8})+/, "");
  while (candidate) {
    if (available.includes(candidate)) return candidate;
    let cut = candidate.lastIndexOf("-");
    if (cut >= 2 && candidate[cut - 2] === "-") cut -= 2;
    candidate = candidate.slice(0, Math.max(cut, 0));
  }
  return undefined;
}

// LookupMatchingLocaleByBestFit, whose details ECMA-402 leaves to the
// implementation: a prefix of the tag (en-US → en), else a tag of the same
// language in the same likely script (en-GB for en-US; never zh-Hans for
// zh-TW).
function bestFit(available, requested) {
  const same = (tag) => {
    const a = new Intl.Locale(tag), b = new Intl.Locale(requested);
    return a.language === b.language && a.maximize().script === b.maximize().script;
  };
  return lookup(available, requested) ?? available.find(same);
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

// ---- options, as WebIDL converts them ----

// A DOMString: anything but a Symbol converts (the template throws for one).
const domString = (value) => `${value}`;

function readDictionary(options) {
  if (options === undefined || options === null) return {};
  if (typeof options !== "object" && typeof options !== "function") {
    throw new TypeError("heed: options must be an object");
  }
  return options;
}

function readSignal({ signal }) {
  if (signal !== undefined && !(signal instanceof AbortSignal)) {
    throw new TypeError("heed: signal must be an AbortSignal");
  }
  return signal;
}

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

function readCreateOptions(options) {
  const dict = readDictionary(options);
  const { monitor } = dict;
  if (monitor !== undefined && typeof monitor !== "function") {
    throw new TypeError("heed: monitor must be a function");
  }
  const signal = readSignal(dict);
  return { monitor, signal, ...readLanguages(dict) };
}

function requireInput(count) {
  if (count === 0) throw new TypeError("heed: the input text is required");
}

// ---- errors and signals ----

function notSupported(source, target) {
  return new DOMException(`heed: no translation from ${source} to ${target}`, "NotSupportedError");
}

// The platform's QuotaExceededError where it has one, else a DOMException
// of that name with the same fields.
function quotaExceeded(requested, quota) {
  const message = `heed: the input is ${requested} bytes, the quota ${quota}`;
  if (typeof globalThis.QuotaExceededError === "function") {
    return new globalThis.QuotaExceededError(message, { requested, quota });
  }
  return Object.assign(new DOMException(message, "QuotaExceededError"), { requested, quota });
}

// heed's failures as the spec's: a DOMException ("UnknownError" where heed
// threw an Error), with heed's message.
function asDomError(e) {
  return e instanceof DOMException ? e : new DOMException(e?.message ?? String(e), "UnknownError");
}

function utf8Bytes(text) {
  return new TextEncoder().encode(text).length;
}

// A signal that aborts when any of them does (AbortSignal.any, Node 20.3+
// and current browsers; by hand before).
function anySignal(signals) {
  if (AbortSignal.any) return AbortSignal.any(signals);
  const controller = new AbortController();
  for (const s of signals) {
    if (s.aborted) controller.abort(s.reason);
    else s.addEventListener("abort", () => controller.abort(s.reason), { once: true });
  }
  return controller.signal;
}

// work()'s result, unless the signal aborts first: then the call rejects at
// once with the signal's reason, whatever work() does after. work() starts
// at once.
function untilAborted(signal, work) {
  if (signal?.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    const stop = () => reject(signal.reason);
    signal?.addEventListener("abort", stop, { once: true });
    new Promise((started) => started(work())).then(resolve, reject)
      .finally(() => signal?.removeEventListener("abort", stop));
  });
}

// Lets the caller's code run first, as the spec's queued tasks do.
function nextTask() {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

// ---- the model and its download ----

// The factory's model: loaded once, by the first create() that needs it,
// its progress handed to every create() watching. A failed load is
// forgotten, so the next create() tries again.
function holdModel(options, declared) {
  let translator = null, loading = null;
  const watchers = new Set();
  const onProgress = ({ loaded, total }) => watchers.forEach((f) => f(loaded / total));
  return {
    languages: () => (translator ? languageCodes(translator.info().languages) : declared),
    availability: () => (translator ? "available" : loading ? "downloading" : "downloadable"),
    translator: () => translator,
    load() {
      loading ??= createTranslator({ ...options, onProgress }).then((t) => (translator = t), (e) => {
        loading = null;
        throw e;
      });
      return loading;
    },
    watch(onFraction) {
      watchers.add(onFraction);
      return () => watchers.delete(onFraction);
    },
  };
}

// What create()'s monitor callback receives: an EventTarget firing
// downloadprogress events (to ondownloadprogress too).
class CreateMonitor extends EventTarget {
  ondownloadprogress = null;

  constructor() {
    super();
    this.addEventListener("downloadprogress", (e) => {
      if (typeof this.ondownloadprogress === "function") this.ondownloadprogress.call(this, e);
    });
  }
}

// ProgressEvent where the platform has it (browsers), else an Event with
// its fields (Node).
function progressEvent(loaded) {
  const init = { loaded, total: 1, lengthComputable: true };
  if (typeof ProgressEvent === "function") return new ProgressEvent("downloadprogress", init);
  return Object.assign(new Event("downloadprogress"), init);
}

// Calls the monitor callback with a new CreateMonitor (what it throws
// rejects create()) and returns the function that fires its events: loaded
// rounded down to a step, each above the last, none once the signal aborts.
function monitorProgress(monitor, signal) {
  if (!monitor) return () => {};
  const target = new CreateMonitor();
  monitor(target);
  let last = -1;
  return (fraction) => {
    const loaded = Math.floor(fraction / STEP) * STEP;
    if (!(loaded > last) || signal?.aborted) return;
    last = loaded;
    target.dispatchEvent(progressEvent(loaded));
  };
}

// Loads the model for create(), reporting progress below 1; an abort
// rejects at once with the signal's reason (the load goes on, for the next
// create()).
async function download(holder, signal, progress) {
  const loaded = untilAborted(signal, () => holder.load().catch((e) => {
    throw new DOMException(e?.message ?? String(e), "OperationError");
  }));
  loaded.catch(() => {});  // awaited below, once the first event is out
  await nextTask();
  progress(0);
  const stop = holder.watch((f) => Number.isFinite(f) && progress(Math.min(f, 1 - STEP)));
  try {
    await loaded;
  } finally {
    stop();
  }
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
    #destroyed = new AbortController();

    constructor(token, arc, heed) {
      if (token !== key) throw new TypeError("Illegal constructor");
      this.#arc = arc;
      this.#heed = heed;
    }

    // Static methods do not use `this`: they work unbound, as a browser's do.
    static async availability(options) {
      const { sourceLanguage, targetLanguage } = readLanguages(readDictionary(options));
      const arc = matchArc(holder.languages(), sourceLanguage, targetLanguage);
      if (!arc) return "unavailable";
      return arc.identity ? "available" : holder.availability();
    }

    static async create(options) {
      const { monitor, signal, sourceLanguage, targetLanguage } = readCreateOptions(options);
      if (signal?.aborted) throw signal.reason;
      const progress = monitorProgress(monitor, signal);
      let arc = matchArc(holder.languages(), sourceLanguage, targetLanguage);
      if (!arc) throw notSupported(sourceLanguage, targetLanguage);
      if (!arc.identity && !holder.translator()) {
        await download(holder, signal, progress);
        arc = matchArc(holder.languages(), sourceLanguage, targetLanguage);  // the model's own
        if (!arc) throw notSupported(sourceLanguage, targetLanguage);
      } else {
        await nextTask();
        progress(0);
      }
      progress(1);
      await nextTask();
      if (signal?.aborted) throw signal.reason;
      const translator = new Translator(key, arc, holder.translator());
      signal?.addEventListener("abort", () => translator.#destroyed.abort(signal.reason), { once: true });
      return translator;
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
      requireInput(arguments.length);
      const signal = this.#signal(options);
      const text = domString(input);
      return untilAborted(signal, () => this.#translate(text, signal));
    }

    // Chunks that join to translate()'s text, each sentence as heed
    // finishes it.
    translateStreaming(input, options = {}) {
      requireInput(arguments.length);
      const signal = this.#signal(options);
      const text = domString(input);
      if (signal.aborted) throw signal.reason;
      const cancelled = new AbortController();
      const live = () => !cancelled.signal.aborted;
      return new ReadableStream({
        start: (controller) => {
          const emit = (chunk) => chunk && live() && controller.enqueue(chunk);
          untilAborted(signal, () => this.#stream(text, anySignal([signal, cancelled.signal]), emit))
            .then(() => live() && controller.close(), (e) => live() && controller.error(e));
        },
        cancel: () => cancelled.abort(),
      });
    }

    async measureInputUsage(input, options = {}) {
      requireInput(arguments.length);
      const signal = this.#signal(options);
      const text = domString(input);
      return untilAborted(signal, () => utf8Bytes(text));
    }

    // Aborts what runs and what comes; the model stays, shared by the
    // factory's other translators.
    destroy() {
      this.#destroyed.abort(new DOMException("heed: the translator was destroyed", "AbortError"));
    }

    // The call's signal, its own and destroy()'s: a new one for each call,
    // so that pending calls do not pile listeners on destroy()'s.
    #signal(options) {
      const own = readSignal(readDictionary(options));
      return anySignal(own ? [this.#destroyed.signal, own] : [this.#destroyed.signal]);
    }

    // The checks before heed: the quota, then text left as it is.
    #passThrough(text) {
      const requested = utf8Bytes(text);
      if (requested > INPUT_QUOTA) throw quotaExceeded(requested, INPUT_QUOTA);
      return this.#arc.identity || NOTHING_TO_TRANSLATE.test(text);
    }

    #heedOptions(signal, onSentence) {
      return { to: this.#arc.to, signal, maxInputBytes: INPUT_QUOTA, onSentence };
    }

    async #translate(text, signal) {
      if (this.#passThrough(text)) return text;
      const r = await this.#heed.translate(text.toWellFormed?.() ?? text, this.#heedOptions(signal))
        .catch((e) => { throw asDomError(e); });
      return r.text;
    }

    async #stream(text, signal, emit) {
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
