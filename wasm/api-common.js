// What heed's Translator and LanguageDetector (translator-api.js,
// language-detector.js) share, as the specification's interfaces share the
// "Shared infrastructure" of the writing assistance APIs: language tags,
// options as WebIDL converts them, errors, signals, destroy(), the
// factory's model with its download and monitor, and create() itself.

// The input a call takes, in UTF-8 bytes: heed's own default limit
// (maxInputBytes). measureInputUsage() counts the same bytes.
export const INPUT_QUOTA = 2 ** 20;

// Progress is reported in steps of 1/65536, as the spec asks; 1 is kept
// for the end, when the model is loaded.
const STEP = 2 ** -16;

// ---- language tags ----

// A language tag as the spec's "validate and canonicalize": a string, in
// ECMA-402's canonical form; a RangeError for what is not a tag.
export function canonicalTag(value) {
  try {
    return Intl.getCanonicalLocales(value)[0];
  } catch {
    throw new RangeError(`heed: invalid language tag: ${value}`);
  }
}

// A model's language codes by canonical tag; a code that is not a
// language tag is not offered.
export function languageCodes(codes) {
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
export function bestFit(available, requested) {
  const same = (tag) => {
    const a = new Intl.Locale(tag), b = new Intl.Locale(requested);
    return a.language === b.language && a.maximize().script === b.maximize().script;
  };
  return lookup(available, requested) ?? available.find(same);
}

// ---- options, as WebIDL converts them ----

// A DOMString: anything but a Symbol converts (the template throws for one).
export const domString = (value) => `${value}`;

export function readDictionary(options) {
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

// The members every create() takes, monitor and signal, and the
// dictionary, for the caller's own.
export function readCreateOptions(options) {
  const dict = readDictionary(options);
  const { monitor } = dict;
  if (monitor !== undefined && typeof monitor !== "function") {
    throw new TypeError("heed: monitor must be a function");
  }
  return { dict, monitor, signal: readSignal(dict) };
}

// ---- errors ----

export function notSupported(message) {
  return new DOMException(`heed: ${message}`, "NotSupportedError");
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
export function asDomError(e) {
  return e instanceof DOMException ? e : new DOMException(e?.message ?? String(e), "UnknownError");
}

function utf8Bytes(text) {
  return new TextEncoder().encode(text).length;
}

// The spec's first step of translating or detecting: input past the
// quota is refused.
export function checkQuota(text) {
  const requested = utf8Bytes(text);
  if (requested > INPUT_QUOTA) throw quotaExceeded(requested, INPUT_QUOTA);
}

// ---- signals ----

// A signal that aborts when any of them does (AbortSignal.any, Node 20.3+
// and current browsers; by hand before), and release(), to call once it is
// no longer needed: by hand, the listeners it put on long-lived signals
// (destroy()'s, the caller's) would otherwise pile up, one per call.
export function anySignal(signals) {
  if (AbortSignal.any) return { signal: AbortSignal.any(signals), release() {} };
  const controller = new AbortController();
  const hooks = [];
  for (const s of signals) {
    if (s.aborted) {
      controller.abort(s.reason);
      break;
    }
    const hook = () => controller.abort(s.reason);
    s.addEventListener("abort", hook, { once: true });
    hooks.push([s, hook]);
  }
  const release = () => hooks.forEach(([s, hook]) => s.removeEventListener("abort", hook));
  return { signal: controller.signal, release };
}

// work()'s result, unless the signal aborts first: then the call rejects at
// once with the signal's reason, whatever work() does after. work() starts
// at once.
export function untilAborted(signal, work) {
  if (signal?.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    const stop = () => reject(signal.reason);
    signal?.addEventListener("abort", stop, { once: true });
    new Promise((started) => started(work())).then(resolve, reject)
      .finally(() => signal?.removeEventListener("abort", stop));
  });
}

// Lets the caller's code run first, as the spec's queued tasks do.
export function nextTask() {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

// ---- destroy() ----

// The spec's DestroyableModel: destroy() aborts what runs and what comes,
// with an AbortError, or with create()'s signal's reason.
function destroyable(what) {
  const controller = new AbortController();
  return {
    destroy(reason = new DOMException(`heed: the ${what} was destroyed`, "AbortError")) {
      controller.abort(reason);
    },
    // A method's arguments (input, options), as WebIDL converts them: the
    // input, required and a string, and the call's signal, its own and
    // destroy()'s (a new one for each call, so that pending calls do not
    // pile listeners on destroy()'s), and release(), for when the call ends.
    call(args) {
      if (args.length === 0) throw new TypeError("heed: the input text is required");
      const [input, options] = args;
      const own = readSignal(readDictionary(options));
      const text = domString(input);
      return { text, ...anySignal(own ? [controller.signal, own] : [controller.signal]) };
    },
  };
}

// measureInputUsage(): the input's UTF-8 bytes, as the quota counts them.
export function measureInputUsage({ text, signal, release }) {
  return untilAborted(signal, () => utf8Bytes(text)).finally(release);
}

// ---- the model and its download ----

// A factory's model: load(onProgress) resolves to it, once, for the first
// create() that needs it, its progress handed to every create() watching;
// a failed load is forgotten, so the next create() tries again. Its
// languages are languagesOf(model) once loaded, `declared` before.
export function holdModel(load, languagesOf, declared) {
  let model = null, loading = null;
  const watchers = new Set();
  const onProgress = ({ loaded, total }) => watchers.forEach((f) => f(loaded / total));
  return {
    languages: () => (model ? languagesOf(model) : declared),
    availability: () => (model ? "available" : loading ? "downloading" : "downloadable"),
    model: () => model,
    load() {
      loading ??= load(onProgress).then((m) => (model = m), (e) => {
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

// The spec's "create an AI model object", once the options are read: the
// monitor, then fit() (what the options fit among the holder's languages;
// it throws a NotSupportedError where nothing does), the model's load where
// needsModel(fitted) and it is not loaded (and fit() again, on the model's
// own languages), then make(fitted, destroyable) builds the object, which
// the signal, aborted later, destroys.
export async function createModelObject(holder, { monitor, signal }, { what, fit, make, needsModel = () => true }) {
  if (signal?.aborted) throw signal.reason;
  const progress = monitorProgress(monitor, signal);
  let fitted = fit();
  if (needsModel(fitted) && !holder.model()) {
    await download(holder, signal, progress);
    fitted = fit();
  } else {
    await nextTask();
    progress(0);
  }
  progress(1);
  await nextTask();
  if (signal?.aborted) throw signal.reason;
  const life = destroyable(what);
  signal?.addEventListener("abort", () => life.destroy(signal.reason), { once: true });
  return make(fitted, life);
}
