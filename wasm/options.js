// The options of translate(), checked before anything crosses to the
// engine: Embind would wrap large numbers and coerce strings.

const KINDS = { encoder: 0, decoder: 1, cross: 2 };
const SUBLAYERS = { "encoder-self": 0, "encoder-ffn": 1, "decoder-self": 2, cross: 3, "decoder-ffn": 4 };

// The engine's table of named options (core/option_table.cc), as checked
// here before anything crosses to the engine; tests/wasm/options.test.mjs
// holds this copy to the engine's own (optionTable()). Counts are whole.
export const OPTIONS = {
  to: { kind: "text" },
  beam: { kind: "count", min: 1, max: 64 },
  nbest: { kind: "count", min: 1, max: 64 },
  lengthPenalty: { kind: "real", min: 0, max: 10 },
  noRepeatNgramSize: { kind: "count", min: 0, max: 1000 },
  repetitionPenalty: { kind: "real", min: 0, max: 10, aboveMin: true },
  prefix: { kind: "text" },
  positions: { kind: "text", values: ["on", "off", "shuffled"] },
  erasure: { kind: "text", values: ["off", "remove", "unk"] },
  html: { kind: "switch" },
  copyUnknown: { kind: "switch" },
  alignments: { kind: "switch" },
  attention: { kind: "switch" },
  contributions: { kind: "switch" },
  alti: { kind: "switch" },
  confidence: { kind: "switch" },
  logitLens: { kind: "count", min: 0, max: 100 },
  maxSentenceTokens: { kind: "count", min: 3, max: 4096 },
  maxBatch: { kind: "count", min: 1, max: 1024 },
  maxInputBytes: { kind: "count", min: 1, max: 2 ** 30 },
  maxAttentionBytes: { kind: "count", min: 0, max: 2 ** 32 - 1 },
};
// Options with structure, read by the bindings themselves.
const STRUCTURED = ["maskHeads", "switchOff", "queryKey", "prefixPieces"];

// Reals cross to the engine as 32-bit floats: the range holds for the
// float the engine will see (Number.MIN_VALUE is 0 there).
function checkNumber(name, v, { min, max, aboveMin = false }, whole) {
  const ok = typeof v === "number" && (whole ? Number.isInteger(v) : Number.isFinite(v));
  const seen = ok && !whole ? Math.fround(v) : v;
  if (!ok || (aboveMin ? seen <= min : seen < min) || seen > max) {
    const what = whole ? "a whole number" : "a number";
    const range = `${aboveMin ? "(" : "["}${min}, ${max}]`;
    throw new RangeError(`heed: option ${name} must be ${what} in ${range}, not ${String(v)}`);
  }
}

function checkNamed(name, v) {
  const spec = OPTIONS[name];
  if (spec.kind === "count" || spec.kind === "real") checkNumber(name, v, spec, spec.kind === "count");
  else if (spec.kind === "switch" && typeof v !== "boolean") throw new TypeError(`heed: option ${name} must be true or false`);
  else if (name === "to" && typeof v !== "string") throw new TypeError("heed: option to must be a language code string");
  else if (spec.values && !spec.values.includes(v)) {
    throw new TypeError(`heed: option ${name} must be one of ${spec.values.map((x) => `"${x}"`).join(", ")}, not ${String(v)}`);
  }
  else if (spec.kind === "text") checkText(v, name);
}

// A call's options read once, own properties only (a getter or Proxy that
// throws throws here, inside the caller's promise): the request's signal
// and onSentence, and the rest for checkOptions.
export function readCallOptions(options) {
  if (options === null || options === undefined) return { rest: {} };
  if (typeof options !== "object") throw new TypeError("heed: options must be an object");
  const { signal, onSentence, ...rest } = Object.fromEntries(Object.entries(options));
  checkCallback(onSentence);
  if (signal !== undefined && (typeof signal !== "object" || signal === null || typeof signal.aborted !== "boolean")) {
    throw new TypeError("heed: option signal must be an AbortSignal");
  }
  return { signal, onSentence, rest };
}

// The options as the engine takes them: checked, maskHeads and switchOff
// kinds as numbers.
export function checkOptions(options) {
  if (options === null || options === undefined) return { maskHeads: [], switchOff: [] };
  if (typeof options !== "object") throw new TypeError("heed: options must be an object");
  const out = {};
  for (const [name, v] of Object.entries(options)) {
    if (v === undefined) continue;
    if (Object.hasOwn(OPTIONS, name)) checkNamed(name, v);
    else if (name === "prefixPieces") {
      // Index by index: every() and forEach() skip the holes of a sparse array.
      const pieces = Array.isArray(v) ? Array.from(v) : null;
      if (!pieces || pieces.some((p) => typeof p !== "string")) {
        throw new TypeError("heed: option prefixPieces must be an array of target pieces (strings)");
      }
      pieces.forEach((p) => checkText(p, "prefixPieces"));
    } else if (!STRUCTURED.includes(name)) {
      throw new TypeError(`heed: unknown option '${name}' (known: ${[...Object.keys(OPTIONS), ...STRUCTURED].join(", ")})`);
    }
    out[name] = v;
  }
  out.maskHeads = checkHeads(options.maskHeads ?? []);
  out.switchOff = checkSublayers(options.switchOff ?? []);
  if (options.queryKey !== undefined) out.queryKey = checkHead(options.queryKey, "queryKey");
  return out;
}

function checkHeads(heads) {
  if (!Array.isArray(heads)) throw new TypeError("heed: maskHeads must be an array of { kind, layer, head }");
  return Array.from(heads, (h) => checkHead(h, "maskHeads"));  // holes too
}

// [{ sublayer: "encoder-self" | "encoder-ffn" | "decoder-self" | "cross" |
// "decoder-ffn", layer }] with the sublayer as a number; the engine checks
// the model has that layer.
function checkSublayers(list) {
  if (!Array.isArray(list)) throw new TypeError("heed: switchOff must be an array of { sublayer, layer }");
  return Array.from(list, (s) => {
    const sublayer = Object.hasOwn(SUBLAYERS, s?.sublayer) ? SUBLAYERS[s.sublayer] : undefined;
    if (sublayer === undefined) {
      throw new TypeError(`heed: switchOff sublayer must be one of ${Object.keys(SUBLAYERS).join(", ")}`);
    }
    checkNumber("switchOff layer", s.layer, { min: 0, max: 4096 }, true);
    return { sublayer, layer: s.layer };
  });
}

// { kind: "encoder" | "decoder" | "cross" (or 0, 1, 2), layer, head } with
// the kind as a number; the engine checks the model has that head.
function checkHead(h, name) {
  const kind = typeof h?.kind === "string" ? KINDS[h.kind] : h?.kind;
  if (![0, 1, 2].includes(kind)) throw new TypeError(`heed: ${name} kind must be encoder, decoder or cross`);
  checkNumber(`${name} layer`, h.layer, { min: 0, max: 4096 }, true);
  checkNumber(`${name} head`, h.head, { min: 0, max: 4096 }, true);
  return { kind, layer: h.layer, head: h.head };
}

// A UTF-16 surrogate without its pair; Emscripten's UTF-8 conversion would
// silently merge it with the next character.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

export function checkText(text, what = "text") {
  if (typeof text !== "string") throw new TypeError(`heed: ${what} must be a string`);
  const bad = LONE_SURROGATE.exec(text);
  if (bad) {
    throw new Error(`heed: ${what} is not valid Unicode: unpaired surrogate at index ${bad.index}`);
  }
}

export function checkCallback(onSentence) {
  if (onSentence !== undefined && typeof onSentence !== "function") {
    throw new TypeError("heed: option onSentence must be a function");
  }
}
