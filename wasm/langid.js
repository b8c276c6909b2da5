// The language detector heed ships (models/langid-en-de.json, trained by
// models/recipe/langid.py): naive Bayes over the 1- to 4-character
// substrings of each space-padded word, hashed into buckets. The
// arithmetic is the recipe's, so the confidences equal its own.

const FORMAT = "heed-langid";
const UNKNOWN = "und";

// FNV-1a (32-bit) of the UTF-8 bytes of s.
function fnv1a(bytes) {
  let h = 0x811c9dc5;
  for (const b of bytes) h = Math.imul(h ^ b, 0x01000193) >>> 0;
  return h;
}

// Runs of letters (Unicode L*), lower-cased, after NFC: what the model
// reads. Digits, punctuation and symbols say nothing of the language.
export function words(text) {
  return text.normalize("NFC").toLowerCase().match(/\p{L}+/gu) ?? [];
}

function check(ok, what) {
  if (!ok) throw new Error(`heed: not a language detection model (${what})`);
}

// The model from the bytes (or text) of its JSON file. Throws an Error
// that says what is wrong with a file that is not one.
export function loadLanguageModel(bytes) {
  let m;
  try {
    m = JSON.parse(typeof bytes === "string" ? bytes : new TextDecoder("utf-8", { fatal: true }).decode(bytes));
  } catch (e) {
    throw new Error(`heed: not a language detection model (${e.message})`);
  }
  check(m && m.format === FORMAT && m.version === 1, "format");
  const { languages, buckets, maxN, temperature, offset, scale } = m;
  const C = Array.isArray(languages) ? languages.length : 0;
  check(C >= 2 && languages.at(-1) === UNKNOWN && languages.every((l) => typeof l === "string"), "languages");
  check(Number.isInteger(buckets) && buckets > 0 && (buckets & (buckets - 1)) === 0 && buckets <= 1 << 24, "buckets");
  check(Number.isInteger(maxN) && maxN >= 1 && maxN <= 8, "maxN");
  check(temperature > 0 && Number.isFinite(temperature), "temperature");
  const finite = (a) => Array.isArray(a) && a.length === C && a.every(Number.isFinite);
  check(finite(offset) && finite(scale), "offset or scale");
  let table;
  try {
    table = Uint8Array.from(atob(m.table), (c) => c.charCodeAt(0));
  } catch {
    check(false, "table");
  }
  check(table.length === C * buckets, "table size");
  return { languages, buckets, maxN, temperature, offset, scale, table };
}

// Each language's confidence that `text` is in it (the last, "und": in
// none of them), summing to 1; null for text with no letters.
export function confidences(model, text) {
  const { languages, buckets, maxN, temperature, offset, scale, table } = model;
  const C = languages.length;
  const q = new Float64Array(C);  // Σ of each class's byte per n-gram
  const encoder = new TextEncoder();
  let count = 0;
  for (const w of words(text)) {
    const s = [..." " + w + " "];  // code points
    for (let n = 1; n <= maxN; ++n) {
      for (let i = 0; i + n <= s.length; ++i) {
        const g = s.slice(i, i + n).join("");
        if (g.trim() === "") continue;
        const b = fnv1a(encoder.encode(g)) & (buckets - 1);
        for (let c = 0; c < C; ++c) q[c] += table[c * buckets + b];
        ++count;
      }
    }
  }
  if (count === 0) return null;
  const z = Array.from(q, (v, c) => (count * offset[c] + v * scale[c]) / temperature);
  const top = Math.max(...z);
  const e = z.map((v) => Math.exp(v - top));
  const sum = e.reduce((a, b) => a + b, 0);
  return e.map((v) => v / sum);
}

// The specification's post-processing ("detect languages"): languages by
// confidence, none below 0 or below "und"'s, stopping once 0.99 is covered;
// then "und" with what is left. Text with no letters is "und" at 1.
export function detectLanguages(model, text) {
  const p = confidences(model, text);
  if (!p) return [{ detectedLanguage: UNKNOWN, confidence: 1 }];
  const unknown = p.at(-1);
  const ranked = model.languages.slice(0, -1).map((l, i) => [l, p[i]]).sort((a, b) => b[1] - a[1]);
  const results = [];
  let cumulative = 0;
  for (const [detectedLanguage, confidence] of ranked) {
    if (confidence === 0 || confidence < unknown) break;
    results.push({ detectedLanguage, confidence });
    cumulative += confidence;
    if (cumulative >= 0.99) break;
  }
  results.push({ detectedLanguage: UNKNOWN, confidence: 1 - cumulative });
  return results;
}
