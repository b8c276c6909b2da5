// heed's page: loads the engine and the model (in a Web Worker), translates
// a text in one request whose sentences arrive batch by batch, and hands
// each translation to the attention explorer. User text is only ever set as text, never HTML.
import { createTranslator } from "heed";  // wasm/, mapped in index.html
import { detectLanguages, loadLanguageModel } from "heed/langid";
import { createExplorer } from "./inside.js";
import { directionOptions, wireModelPicker } from "./model_picker.js";
import { createTour } from "./tour.js";
import { readHash, writeHash } from "./share.js";

// The int8 copy: half the download, the F16 model's BLEU within 0.5
// (models/README.md).
const MODEL = "models/heed-en-de-int8.heed";
// When to mark a sentence as one to check: the steps' mean entropy above
// the threshold models/recipe/quality.py found for the page's model.
const QUALITY = "models/eval/quality.json";
// The language detector the Auto direction asks (models/recipe/langid.py).
const LANGID = "models/langid-en-de.json";
const EXAMPLES = {
  en: ["A dog runs through the park with a ball.",
    "Two men are playing football on the beach.",
    "A little girl in a red dress is climbing the stairs.",
    "I don't know what you mean.",
    "A woman is reading a book in the garden. Her children are playing nearby."],
  de: ["Ein Hund läuft mit einem Ball durch den Park.",
    "Zwei Männer spielen Fußball am Strand.",
    "Ein kleines Mädchen in einem roten Kleid klettert die Treppe hinauf.",
    "Ich weiß nicht, was du meinst.",
    "Eine Frau liest ein Buch im Garten. Ihre Kinder spielen in der Nähe."],
};
const NAMES = { en: "English", de: "German" };
// Sentences decoded together: enough to share the work, few enough that
// the first translations of a paragraph show early.
const BATCH = 4;

const $ = (id) => document.getElementById(id);

function showError(e) {
  const message = e instanceof Error ? e.message : String(e);
  $("error").textContent = message.replace(/^heed: /, "");
  $("error").hidden = false;
}

let detector = null;
let quality = null;  // quality.json's directions, once fetched

async function loadQuality() {
  const response = await fetch(QUALITY);
  if (!response.ok) throw new Error(`heed: cannot fetch ${QUALITY}: HTTP ${response.status}`);
  return (await response.json()).directions;
}

// Marks a sentence the model was unsure of (its steps' mean entropy in the
// top tenth of the test sets'), with what that has meant, on hover. Only
// for the page's own model, which the threshold was measured on.
function markUnsure(slot, s, to) {
  const w = quality?.[to === "en" ? "de-en" : "en-de"]?.warning;
  if (!w || document.body.dataset.model === "user" || !s.entropies?.length) return;
  const mean = s.entropies.reduce((a, b) => a + b, 0) / s.entropies.length;
  if (!(mean > w.above)) return;
  slot.classList.add("unsure-sentence");
  slot.title = `Check this sentence: the model was unsure while writing it (mean entropy ` +
    `${mean.toFixed(2)} nats per step, above ${w.above.toFixed(2)}). On the test sets, sentences like ` +
    `this scored chrF ${w.chrf_flagged.toFixed(0)} against ${w.chrf_rest.toFixed(0)} for the rest.`;
}

// From and to: as chosen, or with Auto the language the detector finds in
// the text (English while it finds neither) into the other one.
function direction() {
  const value = $("direction").value;
  if (value !== "auto") {
    const [from, to] = value.split("-");
    return { from, to };
  }
  const [best] = detector ? detectLanguages(detector, $("source").value) : [];
  const from = best?.detectedLanguage === "de" ? "de" : "en";
  return { from, to: from === "en" ? "de" : "en", detected: best };
}

// With Auto, says which language was found and how sure the detector is.
function showDetected() {
  const { detected } = direction();
  $("detected").hidden = !detected;
  if (!detected) return;
  const { detectedLanguage: lang, confidence } = detected;
  $("detected").textContent = lang === "und" ? "Language not recognised: read as English"
    : `Detected: ${NAMES[lang]} (${Math.round(100 * confidence)}%)`;
}

async function loadDetector() {
  const response = await fetch(LANGID);
  if (!response.ok) throw new Error(`heed: cannot fetch ${LANGID}: HTTP ${response.status}`);
  return loadLanguageModel(new Uint8Array(await response.arrayBuffer()));
}

function fillExamples() {
  const { from } = direction();
  $("examples").replaceChildren(...(EXAMPLES[from] ?? []).map((text) => {
    const b = document.createElement("button");
    b.type = "button";
    b.textContent = text;
    b.addEventListener("click", () => {
      $("source").value = text;
      translate();
    });
    return b;
  }));
  $("source").placeholder = NAMES[from] ? `Type or paste ${NAMES[from]} text…` : "Type or paste text…";
}

function formatBytes(n) {
  return n >= 1e6 ? `${(n / 1e6).toFixed(1)} MB` : `${Math.round(n / 1e3)} KB`;
}

// `model`: the page's model (a URL) or a user's file's bytes, `name`
// then the file's name.
async function load(model = MODEL, name = null) {
  const status = $("load-status"), bar = $("load-progress");
  $("loading").classList.remove("done");
  bar.value = 0;
  let fromCacheSeen = false;
  const translator = await createTranslator({
    model,
    onProgress: ({ loaded, total, fromCache }) => {
      bar.value = total ? loaded / total : 0;
      status.textContent = `${fromCache ? "Reading the model from this browser's cache" : "Loading the model"}: ` +
        `${formatBytes(loaded)}${total ? ` of ${formatBytes(total)}` : ""}`;
      fromCacheSeen ||= fromCache;
    },
  });
  $("model-source").textContent = name ? `Your model, ${name}, read in this browser.`
    : fromCacheSeen ? "The model came from this browser's cache (no download)." : "";
  bar.value = 1;
  $("loading").classList.add("done");
  const info = translator.info(), c = info.config;
  $("model-info").textContent = `Model: ${(info.parameters / 1e6).toFixed(1)} M parameters, ` +
    `${formatBytes(info.fileSize)}; ${c.encoder_layers} encoder + ${c.decoder_layers} decoder layers, ` +
    `${c.heads} heads, d_model ${c.d_model}; languages ${info.languages.join(", ")}; ` +
    `decoding on ${info.threads} thread${info.threads === 1 ? "" : "s"}.`;
  return translator;
}

let translator = null;
let explorer = null;
let restoring = null;  // a link's explorer state, applied once translated
let generation = 0;  // a new translation makes the one running stale
let running = null;  // and, where stopping is cheap, aborts it

// A sentence as one span per word, tinted by the model's probability of
// the word (the product of its pieces'); the title tells the probability,
// the entropy of the word's first step and that step's best alternatives.
// Null when the pieces do not spell the text exactly (then it stays plain).
// Clicking a word opens its decoding step (sentence `index`) in the explorer.
function confidenceSpans(s, index) {
  if (!s.tokenProbabilities) return null;
  const words = [];
  s.targetPieces.forEach((piece, i) => {
    if (piece === "</s>") return;
    if (!words.length || piece.startsWith("\u2581")) words.push({ text: "", p: 1, first: i });
    const w = words[words.length - 1];
    w.text += piece.replaceAll("\u2581", " ");
    w.p *= s.tokenProbabilities[i];
  });
  if (words.map((w) => w.text).join("").trim() !== s.text) return null;
  return words.flatMap((w, k) => {
    const text = k === 0 ? w.text.trimStart() : w.text;
    const lead = text.match(/^ */)[0];
    const span = document.createElement("span");
    span.className = "word";
    span.textContent = text.slice(lead.length);
    span.dataset.p = w.p.toFixed(4);
    span.style.setProperty("--unsure", (0.6 * (1 - w.p)).toFixed(3));
    const alts = (s.alternatives?.[w.first] ?? []).slice(0, 3)
      .map((a) => `${a.piece.replaceAll("\u2581", "") || "·"} ${(100 * a.probability).toFixed(0)}%`).join(", ");
    span.title = `p = ${(100 * w.p).toFixed(1)}% · entropy ${s.entropies[w.first].toFixed(2)} nats` +
      (alts ? ` · the model weighed: ${alts}` : "") + " · click to see this step";
    span.dataset.step = String(w.first);
    span.addEventListener("click", () => explorer.showStep(index, w.first));
    return lead ? [document.createTextNode(lead), span] : [span];
  });
}

async function translate() {
  if (!translator) return;
  const run = ++generation;
  // With shared memory the engine stops at its next step; without, a stop
  // would restart the worker, so a stale translation runs to its end.
  running?.abort();
  running = globalThis.crossOriginIsolated ? new AbortController() : null;
  const text = $("source").value;
  const { to } = direction();
  showDetected();
  const options = { to: to || undefined, beam: Number($("beam").value) };
  $("error").hidden = true;
  $("copy").disabled = true;
  const out = $("target");
  out.replaceChildren();
  $("timing").textContent = "";
  $("html-tags").hidden = true;
  if (!text.trim()) return;
  try {
    if ($("html").checked) {
      await translateHtml(text, options, run);
      return;
    }
    // One placeholder per sentence, filled as its batch is decoded; the
    // whitespace between sentences is kept as it is. The engine splits and
    // batches the text itself; split() only lays out the placeholders.
    const segments = await translator.split(text);
    if (run !== generation) return;
    const slots = segments.map((s) => {
      if (!s.sentence) return document.createTextNode(s.text);
      const span = document.createElement("span");
      span.className = "pending";
      span.textContent = "…";
      return span;
    });
    out.replaceChildren(...slots);
    const sentences = [];
    let tokens = 0;
    const start = performance.now();
    const show = (s) => {
      if (run !== generation) return;
      const slot = slots[s.segment];
      const spans = confidenceSpans(s, sentences.length) ?? [document.createTextNode(s.text)];
      // A sentence too long for the model arrives in pieces, joined by a space.
      if (slot.className === "pending") slot.replaceChildren(...spans);
      else slot.append(" ", ...spans);
      slot.className = "";
      markUnsure(slot, s, to);
      sentences.push(s);
      tokens += s.targetPieces.length;
      const ms = performance.now() - start;
      $("timing").textContent = `${Math.round(ms)} ms · ${Math.round(tokens / (ms / 1000))} tokens/s`;
      explorer.show(sentences, options, sentences.length > 1);
    };
    await translator.translate(text, { ...options, attention: true, confidence: true, logitLens: 5,
                                       maxBatch: BATCH, onSentence: show, signal: running?.signal });
    if (run !== generation) return;
    // A sentence of nothing the model reads (zero-width or control
    // characters) gets no translation: its placeholder is emptied.
    for (const slot of slots) {
      if (slot.className === "pending") {
        slot.textContent = "";
        slot.className = "";
      }
    }
    if (restoring) {
      const snapshot = restoring;
      restoring = null;
      if (sentences.length) await explorer.restore(snapshot);
    }
    $("copy").disabled = false;
    out.dataset.done = String(run);
    updateLink();
  } catch (e) {
    if (run === generation) {
      out.replaceChildren();
      showError(e);
    }
  }
}

// HTML mode: the result is HTML, shown as text (the page never renders
// markup it was given), with where each inline tag went.
async function translateHtml(text, options, run) {
  const start = performance.now();
  const r = await translator.translate(text, { ...options, html: true, attention: true, confidence: true,
                                               logitLens: 5, maxBatch: BATCH, signal: running?.signal });
  if (run !== generation) return;
  $("target").textContent = r.text;
  $("timing").textContent = `${Math.round(performance.now() - start)} ms`;
  $("html-tags").querySelector("tbody").replaceChildren(...r.tags.map((t) => {
    const row = document.createElement("tr");
    for (const [cell, code] of [[t.tag, true], [t.source, false], [t.target || "(nothing)", false]]) {
      const td = document.createElement("td");
      td.append(code ? Object.assign(document.createElement("code"), { textContent: cell }) : cell);
      row.append(td);
    }
    return row;
  }));
  $("html-tags").hidden = r.tags.length === 0;
  if (r.sentences.length) explorer.show(r.sentences, options, r.sentences.length > 1);
  $("copy").disabled = false;
  $("target").dataset.done = String(run);
  updateLink();
}

// The URL's hash follows what is shown, without adding history entries.
function updateLink() {
  const hash = writeHash({ text: $("source").value, direction: $("direction").value, beam: $("beam").value,
                           ...(explorer && !$("inside").hidden ? explorer.snapshot() : {}) });
  history.replaceState(null, "", hash);
}

// Opens the state a link carries: text, direction and beam now, the
// explorer's view once the text is translated.
function openLink() {
  const shared = readHash(location.hash);
  if (shared.text === undefined) return;
  $("source").value = shared.text;
  if ([...$("direction").options].some((o) => o.value === shared.direction)) $("direction").value = shared.direction;
  if ([...$("beam").options].some((o) => o.value === shared.beam)) $("beam").value = shared.beam;
  restoring = shared;
}

function swap() {
  const { from, to } = direction();
  if (from === "any") return;  // a user's model: its source language is unknown
  $("direction").value = `${to}-${from}`;
  const result = $("target").textContent;
  if (result && $("copy").disabled === false) $("source").value = result;
  fillExamples();
  translate();
}

// The page's own direction menu, for English–German models.
const STANDARD_DIRECTIONS = [...$("direction").options].map((o) => o.cloneNode(true));

// Swaps the running model for another: the page's (`file` null) or a
// user's .heed file. The old translator is disposed once the new one runs.
let opening = 0;  // the latest model asked for wins
async function openModel(file) {
  const mine = ++opening;
  $("error").hidden = true;
  try {
    const next = await load(file ? new Uint8Array(await file.arrayBuffer()) : MODEL, file?.name ?? null);
    if (mine !== opening) {  // another model was asked for meanwhile
      next.dispose();
      return;
    }
    ++generation;  // a translation still running is of the old model
    running?.abort();
    const old = translator;
    translator = next;
    old?.dispose();
    explorer.useTranslator(next, !file);
    const previous = $("direction").value;
    $("direction").replaceChildren(...directionOptions(next.info().languages, STANDARD_DIRECTIONS));
    if ([...$("direction").options].some((o) => o.value === previous)) $("direction").value = previous;
    $("swap").disabled = direction().from === "any";
    $("model-reset").hidden = !file;
    document.body.dataset.model = file ? "user" : "page";
    fillExamples();
    translate();
  } catch (e) {
    if (mine !== opening) return;
    $("loading").classList.add("done");
    showError(e);  // the model in use stays
  }
}

wireModelPicker({
  input: $("model-file"), reset: $("model-reset"),
  onOpen: (file) => { if (translator) openModel(file); },
  onReset: () => openModel(null),
});

$("direction").addEventListener("change", () => {
  fillExamples();
  translate();
});
$("swap").addEventListener("click", swap);
$("beam").addEventListener("change", translate);
$("confidence").addEventListener("change", () => {
  $("target").classList.toggle("plain", !$("confidence").checked);
});
$("translate").addEventListener("click", translate);
$("source").addEventListener("keydown", (e) => {
  if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) {
    e.preventDefault();
    translate();
  }
});
$("copy").addEventListener("click", async () => {
  try {
    await navigator.clipboard.writeText($("target").textContent);
    $("copy").textContent = "Copied";
  } catch {
    // Without clipboard permission, select the text for the user to copy.
    getSelection().selectAllChildren($("target"));
    $("copy").textContent = "Selected";
  }
  setTimeout(() => { $("copy").textContent = "Copy"; }, 1200);
});

$("copy-link").addEventListener("click", async () => {
  updateLink();
  try {
    await navigator.clipboard.writeText(location.href);
    $("copy-link").textContent = "Link copied";
  } catch {
    $("copy-link").textContent = "Link in the address bar";
  }
  setTimeout(() => { $("copy-link").textContent = "Copy link"; }, 1500);
});

// The page and the engine are kept for offline use after the first visit
// (sw.js); a browser without service workers simply loads them each time.
// Registered once the first translation is done, so that its copies of the
// files the page has fetched are revalidated (304), not downloaded again.
const keepForOffline = () => navigator.serviceWorker?.register("sw.js").catch(() => {});
openLink();
fillExamples();
try {
  [translator, detector, quality] = await Promise.all([load(), loadDetector(),
    loadQuality().catch(() => null)]);  // without it, no sentence is marked
  explorer = createExplorer(translator, showError, updateLink);
  const tour = createTour(explorer, () => translator.info().config);
  $("tour-open").addEventListener("click", () => tour.open());
  $("translate").disabled = false;
  document.body.dataset.ready = "true";
  translate().finally(keepForOffline);
} catch (e) {
  $("load-status").textContent = "The translation engine could not be loaded.";
  showError(e);
  keepForOffline();
}
