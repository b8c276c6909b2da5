// The options of translate(), checked before anything crosses to the
// engine: Embind would wrap large numbers and coerce strings.

const KINDS = { encoder: 0, decoder: 1, cross: 2 };

// Every number option's range; WHOLE ones must be integers.
const WHOLE = { beam: [1, 64], nbest: [1, 64], maxBatch: [1, 1024], logitLens: [0, 100],
                maxSentenceTokens: [3, 4096], noRepeatNgramSize: [0, 1000],
                maxAttentionBytes: [0, 2 ** 32 - 1], maxInputBytes: [1, 2 ** 30] };
const REAL = { lengthPenalty: [0, 10], repetitionPenalty: [Number.MIN_VALUE, 10] };

function checkNumber(name, v, [lo, hi], whole) {
  const ok = typeof v === "number" && (whole ? Number.isInteger(v) : Number.isFinite(v));
  if (!ok || v < lo || v > hi) {
    const what = whole ? "a whole number" : "a number";
    throw new RangeError(`heed: option ${name} must be ${what} in [${lo}, ${hi}], not ${String(v)}`);
  }
}

// The options as the engine takes them: checked, maskHeads kinds as numbers.
export function checkOptions(options) {
  if (options === null || options === undefined) return { maskHeads: [] };
  if (typeof options !== "object") throw new TypeError("heed: options must be an object");
  const out = {};
  for (const [name, v] of Object.entries(options)) {
    if (v === undefined) continue;
    if (name in WHOLE) checkNumber(name, v, WHOLE[name], true);
    else if (name in REAL) checkNumber(name, v, REAL[name], false);
    else if (name === "to" && typeof v !== "string") throw new TypeError("heed: option to must be a language code string");
    else if (name === "prefix") checkText(v, "prefix");
    else if (name === "prefixPieces") {
      if (!Array.isArray(v) || !v.every((p) => typeof p === "string")) {
        throw new TypeError("heed: option prefixPieces must be an array of target pieces (strings)");
      }
      v.forEach((p) => checkText(p, "prefixPieces"));
    }
    else if (["attention", "confidence", "contributions"].includes(name) && typeof v !== "boolean") {
      throw new TypeError(`heed: option ${name} must be true or false`);
    } else if (!KNOWN.includes(name)) {
      throw new TypeError(`heed: unknown option '${name}' (known: ${KNOWN.join(", ")}, ${[...Object.keys(WHOLE), ...Object.keys(REAL)].join(", ")})`);
    }
    out[name] = v;
  }
  out.maskHeads = checkHeads(options.maskHeads ?? []);
  if (options.queryKey !== undefined) out.queryKey = checkHead(options.queryKey, "queryKey");
  return out;
}

const KNOWN = ["to", "attention", "confidence", "contributions", "maskHeads", "queryKey", "prefix", "prefixPieces"];

function checkHeads(heads) {
  if (!Array.isArray(heads)) throw new TypeError("heed: maskHeads must be an array of { kind, layer, head }");
  return heads.map((h) => checkHead(h, "maskHeads"));
}

// { kind: "encoder" | "decoder" | "cross" (or 0, 1, 2), layer, head } with
// the kind as a number; the engine checks the model has that head.
function checkHead(h, name) {
  const kind = typeof h?.kind === "string" ? KINDS[h.kind] : h?.kind;
  if (![0, 1, 2].includes(kind)) throw new TypeError(`heed: ${name} kind must be encoder, decoder or cross`);
  checkNumber(`${name} layer`, h.layer, [0, 4096], true);
  checkNumber(`${name} head`, h.head, [0, 4096], true);
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
