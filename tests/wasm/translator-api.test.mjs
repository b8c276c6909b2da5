// The web's Translator and LanguageDetector APIs on heed (translator-api.js)
// in Node: the spec's behaviours, translations equal to heed's own
// translate(), detections equal to langid.js's detectLanguages().
// The same API in Chromium, with the web-platform-tests ported:
// translator-api-browser.test.mjs.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { createReadStream, readFileSync, statSync } from "node:fs";
import { join } from "node:path";

const root = new URL("../../", import.meta.url).pathname;
const dist = join(root, "build/wasm/dist");
const { createTranslator } = await import(join(dist, "heed.js"));
const { createTranslatorAPI, install } = await import(join(dist, "translator-api.js"));
const { detectLanguages, loadLanguageModel } = await import(join(dist, "langid.js"));
const shipped = join(root, "models/heed-en-de-int8.heed");
const langid = join(root, "models/langid-en-de.json");
const tiny = join(root, "tests/fixtures/tiny_prenorm.heed");
const QUOTA = 2 ** 20;

const heed = await createTranslator({ model: shipped });
const expected = async (text, to) => (await heed.translate(text, { to })).text;
const { Translator } = createTranslatorAPI({ model: shipped });
const enDe = await Translator.create({ sourceLanguage: "en", targetLanguage: "de" });

async function read(stream) {
  const chunks = [];
  for await (const chunk of stream) chunks.push(chunk);
  return chunks;
}

// Serves a model over HTTP, counting requests; `slow` sends it in small
// pieces (of `pieceBytes` bytes) with pauses, so that a download can be caught
// half-way.
async function serveModel(file, { slow = false, pieceBytes = 1 << 16 } = {}) {
  const served = { requests: 0 };
  const server = createServer(async (req, res) => {
    ++served.requests;
    res.writeHead(200, { "content-length": statSync(file).size, "content-type": "application/octet-stream" });
    for await (const piece of createReadStream(file, { highWaterMark: slow ? pieceBytes : 1 << 20 })) {
      res.write(piece);
      if (slow) await new Promise((resolve) => setTimeout(resolve, 10));
    }
    res.end();
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  served.url = `http://127.0.0.1:${server.address().port}/model.heed`;
  served.close = () => new Promise((resolve) => server.close(resolve));
  return served;
}

// The downloadprogress events one create() fires, as the spec has them.
function progressLog() {
  const log = { loaded: [], created: false, late: 0 };
  log.monitor = (m) => m.addEventListener("downloadprogress", (e) => {
    if (log.created) ++log.late;
    assert.equal(e.type, "downloadprogress");
    assert.equal(e.total, 1);
    assert.equal(e.lengthComputable, true);
    log.loaded.push(e.loaded);
  });
  return log;
}

function assertProgress(loaded) {
  assert.ok(loaded.length >= 2, `${loaded}`);
  assert.equal(loaded[0], 0);
  assert.equal(loaded.at(-1), 1);
  loaded.forEach((v, i) => {
    assert.equal(v % 2 ** -16, 0, `${v} is a multiple of 1/65536`);
    if (i > 0) assert.ok(v > loaded[i - 1], `${loaded} increases`);
  });
}

test("availability follows the model's load: downloadable, downloading, available; one load per factory", async () => {
  const served = await serveModel(shipped);
  try {
    const api = createTranslatorAPI({ model: served.url });
    const pair = { sourceLanguage: "en", targetLanguage: "de" };
    assert.equal(await api.Translator.availability(pair), "downloadable");
    const first = progressLog(), second = progressLog();
    const creating = [api.Translator.create({ ...pair, monitor: first.monitor }),
                      api.Translator.create({ sourceLanguage: "de", targetLanguage: "en", monitor: second.monitor })];
    assert.equal(await api.Translator.availability(pair), "downloading");
    const [a, b] = await Promise.all(creating);
    first.created = second.created = true;
    assert.equal(await api.Translator.availability(pair), "available");
    assert.equal(await api.Translator.availability({ sourceLanguage: "de", targetLanguage: "en" }), "available");
    assertProgress(first.loaded);
    assertProgress(second.loaded);
    assert.ok(first.loaded.length > 2, `progress during the download: ${first.loaded.length} events`);
    const third = progressLog();
    await api.Translator.create({ ...pair, monitor: third.monitor });
    assert.deepEqual(third.loaded, [0, 1], "a loaded model: 0 and 1 only");
    assert.equal(served.requests, 1, "the factory loads its model once");
    assert.equal(first.late + second.late + third.late, 0, "no event after create() resolves");
    assert.equal(await a.translate("A dog runs."), await expected("A dog runs.", "de"));
    assert.equal(await b.translate("Ein Hund läuft."), await expected("Ein Hund läuft.", "en"));
  } finally {
    await served.close();
  }
});

test("translate() and translateStreaming() give heed's own translation, en→de and de→en", async () => {
  const deEn = await Translator.create({ sourceLanguage: "de", targetLanguage: "en" });
  const texts = {
    de: ["A dog runs in the park.", "hello", "Please write a sentence in English.",
         "Two men play football.  The girl sings!\n\nA woman waits at home. ", "  Leading and trailing space. "],
    en: ["Ein Hund läuft im Park.", "Zwei Männer spielen Fußball. Das Mädchen singt.\n", "Grüße aus Köln."],
  };
  for (const [to, translator] of [["de", enDe], ["en", deEn]]) {
    for (const text of texts[to]) {
      const want = await expected(text, to);
      assert.equal(await translator.translate(text), want, text);
      const chunks = await read(translator.translateStreaming(text));
      assert.equal(chunks.join(""), want, `streamed: ${text}`);
      const sentences = (await heed.split(text)).filter((s) => s.sentence).length;
      assert.ok(chunks.length >= sentences, `a chunk per sentence: ${JSON.stringify(chunks)}`);
      assert.ok(chunks.every((c) => typeof c === "string" && c.length > 0));
    }
  }
  assert.equal(Object.prototype.toString.call(enDe.translateStreaming("hello")), "[object ReadableStream]");
});

test("heed's html option: HTML in, heed's HTML mode out, streamed as one chunk", async () => {
  const text = '<p>Click <a href="/x">here</a> to <b>book</b> a table.</p><p>The <i>dog</i> runs.</p>';
  const want = (await heed.translate(text, { to: "de", html: true })).text;
  assert.match(want, /<a href="\/x">[^<]+<\/a>/);
  assert.equal(await enDe.translate(text, { html: true }), want);
  assert.deepEqual(await read(enDe.translateStreaming(text, { html: true })), [want]);
  assert.notEqual(await enDe.translate(text), want);  // without it, tags are text
  await assert.rejects(enDe.translate(text, { html: "yes" }), TypeError);
  assert.throws(() => enDe.translateStreaming(text, { html: 1 }), TypeError);
});

test("a sentence too long for the model streams in parts that join as heed joins them", async () => {
  const local = await createTranslator({ model: tiny });
  const t = await createTranslatorAPI({ model: tiny }).Translator.create({ sourceLanguage: "en", targetLanguage: "de" });
  const long = Array.from({ length: 200 }, (_, i) => `dog${i % 7} runs`).join(" and ");
  const text = `Intro. ${long}.  Outro.\n`;
  const parts = [];
  const want = (await local.translate(text, { to: "de", onSentence: (s) => parts.push(s.segment) })).text;
  assert.ok(parts.length > new Set(parts).size, `a sentence in several parts: segments ${parts}`);
  const chunks = await read(t.translateStreaming(text));
  assert.equal(chunks.join(""), want);
  assert.equal(await t.translate(text), want);
  local.dispose();
});

test("language tags: canonical, best fit to the model's (en-US → en, de-AT → de), identity, unavailable", async () => {
  const fitted = await Translator.create({ sourceLanguage: "EN-us", targetLanguage: "de-AT" });
  assert.equal(fitted.sourceLanguage, "en");
  assert.equal(fitted.targetLanguage, "de");
  assert.equal(await fitted.translate("A dog runs."), await expected("A dog runs.", "de"));
  const latn = await Translator.create({ sourceLanguage: "de-Latn-CH-1901", targetLanguage: "en-Latn-x-private" });
  assert.deepEqual([latn.sourceLanguage, latn.targetLanguage], ["de", "en"]);
  for (const [sourceLanguage, targetLanguage] of [["en", "fr"], ["fr", "de"], ["ja", "en"], ["de", "zh"]]) {
    assert.equal(await Translator.availability({ sourceLanguage, targetLanguage }), "unavailable");
    await assert.rejects(Translator.create({ sourceLanguage, targetLanguage }),
                         (e) => e instanceof DOMException && e.name === "NotSupportedError");
  }
  // The identity translation: no model is needed (this factory's cannot load).
  const none = createTranslatorAPI({ model: join(root, "nonexistent.heed") });
  for (const [sourceLanguage, targetLanguage] of [["en", "en-GB"], ["en-US", "en-GB"], ["de-CH", "de"], ["fr", "fr"]]) {
    assert.equal(await none.Translator.availability({ sourceLanguage, targetLanguage }), "available");
    const same = await none.Translator.create({ sourceLanguage, targetLanguage });
    assert.deepEqual([same.sourceLanguage, same.targetLanguage], [sourceLanguage, targetLanguage]);
    assert.equal(await same.translate("Colour me surprised."), "Colour me surprised.");
    assert.deepEqual(await read(same.translateStreaming("Colour.")), ["Colour."]);
  }
  assert.equal(await none.Translator.availability({ sourceLanguage: "en-US", targetLanguage: "de" }), "downloadable");
  await assert.rejects(none.Translator.create({ sourceLanguage: "en", targetLanguage: "de" }),
                       (e) => e.name === "OperationError" && /nonexistent\.heed/.test(e.message));
  await assert.rejects(none.Translator.create({ sourceLanguage: "en", targetLanguage: "de" }), { name: "OperationError" },
                       "a failed load is tried again");
});

test("the model's own languages decide once it is loaded", async () => {
  const api = createTranslatorAPI({ model: tiny, languages: ["en", "de", "fr"] });
  const enFr = { sourceLanguage: "en", targetLanguage: "fr" };
  assert.equal(await api.Translator.availability(enFr), "downloadable", "as declared, before the load");
  await assert.rejects(api.Translator.create(enFr), { name: "NotSupportedError" });
  assert.equal(await api.Translator.availability(enFr), "unavailable", "the model has no French");
  assert.equal(await api.Translator.availability({ sourceLanguage: "de", targetLanguage: "en" }), "available");
  assert.throws(() => createTranslatorAPI({ model: tiny, languages: ["en", "e"] }), RangeError);
});

test("bad options: TypeError for what is missing or of the wrong type, RangeError for invalid tags", async () => {
  for (const options of [undefined, null, {}, { sourceLanguage: "en" }, { targetLanguage: "de" }, "en",
                         { sourceLanguage: Symbol("en"), targetLanguage: "de" }]) {
    await assert.rejects(Translator.create(options), TypeError, String(options?.sourceLanguage ?? options));
    await assert.rejects(Translator.availability(options), TypeError);
  }
  const pair = { sourceLanguage: "en", targetLanguage: "de" };
  await assert.rejects(Translator.create({ ...pair, monitor: "no" }), TypeError);
  await assert.rejects(Translator.create({ ...pair, signal: {} }), TypeError);
  const invalid = ["e", "Latn", "enLatnGBfonipa", "11", "en_Latn", "en-Lat", "en-A999", "", "de-"];
  for (const tag of invalid) {
    for (const method of [Translator.create, Translator.availability]) {  // unbound, as the WPT calls them
      await assert.rejects(method({ sourceLanguage: tag, targetLanguage: "de" }), RangeError, tag);
      await assert.rejects(method({ sourceLanguage: "en", targetLanguage: tag }), RangeError, tag);
    }
  }
  await assert.rejects(enDe.translate(), TypeError);
  await assert.rejects(enDe.translate("x", { signal: "no" }), TypeError);
  await assert.rejects(enDe.translate("x", 5), TypeError);
  await assert.rejects(enDe.measureInputUsage(), TypeError);
  assert.throws(() => enDe.translateStreaming(), TypeError);
  assert.throws(() => new Translator(), TypeError);
  assert.throws(() => createTranslatorAPI(), TypeError);
  assert.equal(await enDe.translate(12), await expected("12", "de"), "the input converts to a string");
});

test("text with nothing to translate comes back as it is", async () => {
  const nothing = ["", " ", "     ", " \r\n\t\f", "\u200b", "\u00a0\u2003"];
  for (let c = 0; c < 0x20; ++c) nothing.push(String.fromCharCode(c));
  nothing.push("\u007f", "\0\0 \u0001");
  assert.deepEqual(await Promise.all(nothing.map((s) => enDe.translate(s))), nothing);
  for (const s of nothing) assert.equal((await read(enDe.translateStreaming(s))).join(""), s);
  for (const s of nothing) {
    const text = `Hello ${s} world`;
    const got = await enDe.translate(text);
    assert.notEqual(got, text);
    assert.equal(got, await expected(text, "de"), JSON.stringify(text));
  }
});

test("measureInputUsage counts UTF-8 bytes; past inputQuota a QuotaExceededError", async () => {
  assert.equal(enDe.inputQuota, QUOTA);
  assert.equal(await enDe.measureInputUsage("hello"), 5);
  assert.equal(await enDe.measureInputUsage("Grüße 🙂"), 12);
  assert.equal(await enDe.measureInputUsage(""), 0);
  const spaces = " ".repeat(QUOTA);
  assert.equal(await enDe.translate(spaces), spaces, "exactly the quota is taken");
  const over = "ü".repeat(QUOTA / 2) + "x";
  const isQuota = (e) => e instanceof DOMException && e.name === "QuotaExceededError" &&
    e.requested === QUOTA + 1 && e.quota === QUOTA;
  await assert.rejects(enDe.translate(over), isQuota);
  await assert.rejects(read(enDe.translateStreaming(over)), isQuota);
  assert.equal(await enDe.translate("hello"), await expected("hello", "de"));
});

test("signals: an aborted call rejects with the signal's reason, and the translator keeps working", async () => {
  const want = await expected("A dog runs.", "de");
  const before = new AbortController();
  before.abort();
  await assert.rejects(enDe.translate("A dog runs.", { signal: before.signal }), { name: "AbortError" });
  await assert.rejects(enDe.measureInputUsage("A dog runs.", { signal: before.signal }), { name: "AbortError" });
  assert.throws(() => enDe.translateStreaming("A dog runs.", { signal: before.signal }), { name: "AbortError" });
  await assert.rejects(Translator.create({ sourceLanguage: "en", targetLanguage: "de", signal: before.signal }),
                       { name: "AbortError" });
  for (const reason of [undefined, new Error("mine")]) {
    const during = new AbortController();
    const calls = [enDe.translate("A dog runs.", { signal: during.signal }),
                   enDe.measureInputUsage("A dog runs.", { signal: during.signal }),
                   read(enDe.translateStreaming("A dog runs.", { signal: during.signal }))];
    during.abort(reason);
    for (const call of calls) {
      await assert.rejects(call, (e) => (reason ? e === reason : e.name === "AbortError"));
    }
    assert.equal(await enDe.translate("A dog runs."), want, "usable after the abort");
    assert.equal((await read(enDe.translateStreaming("A dog runs."))).join(""), want);
  }
  const cancelled = enDe.translateStreaming("A dog runs. Two men play.");
  await cancelled.cancel();
  assert.equal(await enDe.translate("A dog runs."), want, "usable after a cancelled stream");
});

// What create(options) makes with a signal is destroyed when the signal
// aborts later: call(object), under way and later, and measureInputUsage()
// reject with the signal's reason.
async function assertCreateSignalDestroys(create, call) {
  const controller = new AbortController();
  const owned = await create({ signal: controller.signal });
  const running = call(owned);
  const reason = new Error("the create signal");
  controller.abort(reason);
  for (const pending of [running, call(owned), owned.measureInputUsage("hello")]) {
    await assert.rejects(pending, (e) => e === reason);
  }
}

test("destroy() aborts pending and later calls; create()'s signal destroys the translator", async () => {
  const doomed = await Translator.create({ sourceLanguage: "en", targetLanguage: "de" });
  const pending = [doomed.translate("A dog runs."), doomed.measureInputUsage("A dog runs."),
                   read(doomed.translateStreaming("A dog runs."))];
  doomed.destroy();
  doomed.destroy();
  const later = [doomed.translate("A dog runs."), doomed.measureInputUsage("A dog runs.")];
  for (const call of [...pending, ...later]) {
    await assert.rejects(call, (e) => e instanceof DOMException && e.name === "AbortError");
  }
  assert.throws(() => doomed.translateStreaming("A dog runs."), { name: "AbortError" });
  assert.equal(await enDe.translate("A dog runs."), await expected("A dog runs.", "de"), "the model is still shared");
  const create = (options) => Translator.create({ sourceLanguage: "en", targetLanguage: "de", ...options });
  await assertCreateSignalDestroys(create, (t) => t.translate("A dog runs."));
});

// create(options) aborted by its own monitor's listener at the first event
// at or above `abortAt`: it rejects with the reason, and no event comes
// after.
async function abortCreateAt(create, abortAt) {
  const controller = new AbortController();
  const seen = [];
  const reason = new Error(`abort at ${abortAt}`);
  const creating = create({ signal: controller.signal, monitor: (m) => m.addEventListener("downloadprogress", (e) => {
    seen.push(e.loaded);
    if (e.loaded >= abortAt) controller.abort(reason);
  }) });
  await assert.rejects(creating, (e) => e === reason);
  await new Promise((resolve) => setTimeout(resolve, 100));
  assert.ok(seen.at(-1) >= abortAt && seen.slice(0, -1).every((v) => v < abortAt), `no event after the abort: ${seen}`);
}

test("monitor: downloadprogress at 0 and 1 and between; none after an abort; a throwing monitor rejects", async () => {
  const served = await serveModel(shipped, { slow: true });
  try {
    const api = createTranslatorAPI({ model: served.url });
    const pair = { sourceLanguage: "en", targetLanguage: "de" };
    const create = (options) => api.Translator.create({ ...pair, ...options });
    const thrown = new Error("the monitor says no");
    await assert.rejects(api.Translator.create({ ...pair, monitor: () => { throw thrown; } }), (e) => e === thrown);
    await abortCreateAt(create, 0);
    assert.equal(await api.Translator.availability(pair), "downloading", "the load goes on");
    await abortCreateAt(create, 2 ** -16);
    assert.equal(await api.Translator.availability(pair), "downloading");
    const handler = [];
    await api.Translator.create({ ...pair, monitor: (m) => { m.ondownloadprogress = (e) => handler.push(e.loaded); } });
    assertProgress(handler);
    await abortCreateAt(create, 0);
    await abortCreateAt(create, 1);
    const loaded = [];
    const t = await api.Translator.create({ ...pair, monitor: (m) => { m.ondownloadprogress = (e) => loaded.push(e.loaded); } });
    assert.deepEqual(loaded, [0, 1]);
    assert.equal(served.requests, 1, "the aborted creates' download served the next create");
    assert.equal(await t.translate("hello"), await expected("hello", "de"));
  } finally {
    await served.close();
  }
});
test("concurrent calls are all served", async () => {
  const texts = ["A dog runs in the park.", "Two men play football.", "The girl sings. A woman waits."];
  const wants = await Promise.all(texts.map((t) => expected(t, "de")));
  assert.deepEqual(await Promise.all(texts.map((t) => enDe.translate(t))), wants);
  const streamed = await Promise.all(texts.map(async (t) => (await read(enDe.translateStreaming(t))).join("")));
  assert.deepEqual(streamed, wants);
  assert.deepEqual(await Promise.all([enDe.translate(texts[0]), enDe.translate(texts[0])]), [wants[0], wants[0]]);
});

test("with worker: true the engine runs on a worker thread; an abort stops a running translation", async () => {
  const local = await createTranslator({ model: tiny });
  const api = createTranslatorAPI({ model: tiny, worker: true });
  const t = await api.Translator.create({ sourceLanguage: "en", targetLanguage: "de" });
  const text = "A dog runs in the park. Two men play football.";
  const want = (await local.translate(text, { to: "de" })).text;
  assert.equal(await t.translate(text), want);
  assert.equal((await read(t.translateStreaming(text))).join(""), want);
  const long = Array.from({ length: 300 }, (_, i) => `Sentence ${i} is about a dog that runs.`).join(" ");
  const controller = new AbortController();
  const started = Date.now();
  const running = t.translate(long, { signal: controller.signal });
  setTimeout(() => controller.abort(), 50);
  await assert.rejects(running, { name: "AbortError" });
  assert.ok(Date.now() - started < 5000, "stopped, not finished");
  assert.equal(await t.translate(text), want, "usable after the abort");
  local.dispose();
});

test("install() defines Translator only where there is none", async () => {
  const bare = {};
  const installed = install(bare, { model: tiny });
  assert.equal(bare.Translator, installed);
  assert.ok(!("LanguageDetector" in bare), "no LanguageDetector without a languageModel");
  assert.ok(!("LanguageDetector" in createTranslatorAPI({ model: tiny })));
  const d = Object.getOwnPropertyDescriptor(bare, "Translator");
  assert.deepEqual([d.writable, d.enumerable, d.configurable], [true, false, true]);
  const t = await bare.Translator.create({ sourceLanguage: "en", targetLanguage: "de" });
  assert.equal(typeof (await t.translate("A dog.")), "string");
  const native = function Translator() {};
  const taken = { Translator: native };
  assert.equal(install(taken, { model: tiny }), native);
  assert.equal(taken.Translator, native);
  assert.equal(globalThis.Translator, undefined);
  try {
    assert.notEqual(install(undefined, { model: tiny }), undefined);
    assert.equal(typeof globalThis.Translator.create, "function");
    assert.equal(install(globalThis, { model: shipped }), globalThis.Translator, "installed once");
  } finally {
    delete globalThis.Translator;
  }
});

// ---- LanguageDetector ----

const langidModel = loadLanguageModel(readFileSync(langid));
const { LanguageDetector } = createTranslatorAPI({ model: shipped, languageModel: langid });
const detector = await LanguageDetector.create();
const isDom = (name) => (e) => e instanceof DOMException && e.name === name;

test("LanguageDetector: loaded lazily, once per factory; downloadable, downloading, available", async () => {
  const served = await serveModel(langid);
  try {
    const api = createTranslatorAPI({ model: served.url, languageModel: served.url });
    assert.equal(await api.LanguageDetector.availability(), "downloadable");
    assert.equal(await api.LanguageDetector.availability({ expectedInputLanguages: ["en", "de"] }), "downloadable");
    assert.equal(served.requests, 0, "nothing is loaded before create()");
    const first = progressLog(), second = progressLog();
    const creating = [api.LanguageDetector.create({ monitor: first.monitor }),
                      api.LanguageDetector.create({ expectedInputLanguages: ["de"], monitor: second.monitor })];
    assert.equal(await api.LanguageDetector.availability({ expectedInputLanguages: ["en"] }), "downloading");
    const [a, b] = await Promise.all(creating);
    first.created = second.created = true;
    assert.equal(await api.LanguageDetector.availability(), "available");
    assert.equal(await api.LanguageDetector.availability({ expectedInputLanguages: ["de-CH", "en"] }), "available");
    assertProgress(first.loaded);
    assertProgress(second.loaded);
    const third = progressLog();
    await api.LanguageDetector.create({ monitor: third.monitor });
    assert.deepEqual(third.loaded, [0, 1], "a loaded model: 0 and 1 only");
    assert.equal(first.late + second.late + third.late, 0, "no event after create() resolves");
    assert.equal(served.requests, 1, "the factory loads its language model once");
    assert.deepEqual(await a.detect("Der Hund schläft."), detectLanguages(langidModel, "Der Hund schläft."));
    assert.deepEqual(await b.detect("The dog sleeps."), detectLanguages(langidModel, "The dog sleeps."));
    assert.equal(await api.Translator.availability({ sourceLanguage: "en", targetLanguage: "de" }), "downloadable",
                 "the translation model is a load of its own");
  } finally {
    await served.close();
  }
});

test("LanguageDetector: detect() gives langid.js's detectLanguages() for the same text", async () => {
  const texts = ["Please write a sentence in English.", "Ein Hund läuft im Park.", "hello", "Hund", "Das ist a test",
                 "Bonjour tout le monde", "", " \n\t", "42!", "🙂🙂",
                 "Grüße aus Köln.\n\nGreetings from Cologne.",
                 "a\u0000b\u200bc", "\ud800 lone surrogate", "The dog sleeps. ".repeat(2000)];
  for (const text of texts) {
    const got = await detector.detect(text);
    assert.deepEqual(got, detectLanguages(langidModel, text), JSON.stringify(text.slice(0, 40)));
    assert.equal(got.at(-1).detectedLanguage, "und");
    for (const r of got) assert.deepEqual(Object.keys(r), ["detectedLanguage", "confidence"]);
  }
  assert.deepEqual(await detector.detect(""), [{ detectedLanguage: "und", confidence: 1 }]);
  assert.equal((await detector.detect("Der Hund schläft im Garten."))[0].detectedLanguage, "de");
  assert.equal((await detector.detect("The dog sleeps in the garden."))[0].detectedLanguage, "en");
  assert.deepEqual(await detector.detect(12), detectLanguages(langidModel, "12"), "the input converts to a string");
  const texts3 = ["A dog runs in the park.", "Zwei Männer spielen Fußball.", "hello"];
  assert.deepEqual(await Promise.all(texts3.map((t) => detector.detect(t))),
                   texts3.map((t) => detectLanguages(langidModel, t)), "concurrent calls");
});

test("LanguageDetector: expectedInputLanguages fit the model's (en-US → en), frozen, null if none", async () => {
  assert.equal(detector.expectedInputLanguages, null);
  assert.equal((await LanguageDetector.create({ expectedInputLanguages: [] })).expectedInputLanguages, null);
  const cases = [[["en"], ["en"]], [["EN-us"], ["en"]], [["de-AT", "en"], ["de", "en"]],
                 [["en-US", "en-GB", "en", "EN-lATN-gb-scouse-fonipa"], ["en"]], [["de-Latn-CH-1901", "de"], ["de"]],
                 [new Set(["de", "en-x-private"]), ["de", "en"]]];
  for (const [requested, want] of cases) {
    assert.equal(await LanguageDetector.availability({ expectedInputLanguages: requested }), "available");
    const d = await LanguageDetector.create({ expectedInputLanguages: requested });
    assert.deepEqual(d.expectedInputLanguages, want, [...requested].join());
    assert.ok(Object.isFrozen(d.expectedInputLanguages));
    assert.equal(d.expectedInputLanguages, d.expectedInputLanguages, "the same array each time");
  }
  for (const requested of [["fr"], ["en", "fr"], ["ja"], ["und"], ["zh-Hant", "de"], ["es-419"]]) {
    assert.equal(await LanguageDetector.availability({ expectedInputLanguages: requested }), "unavailable");
    await assert.rejects(LanguageDetector.create({ expectedInputLanguages: requested }), isDom("NotSupportedError"));
  }
});

test("LanguageDetector: the model's own languages decide once it is loaded", async () => {
  const api = createTranslatorAPI({ model: tiny, languageModel: langid, languages: ["en", "de", "fr"] });
  const fr = { expectedInputLanguages: ["fr"] };
  assert.equal(await api.LanguageDetector.availability(fr), "downloadable", "as declared, before the load");
  await assert.rejects(api.LanguageDetector.create(fr), isDom("NotSupportedError"));
  assert.equal(await api.LanguageDetector.availability(fr), "unavailable", "the model detects no French");
  assert.equal(await api.LanguageDetector.availability({ expectedInputLanguages: ["de"] }), "available");
});

test("LanguageDetector: TypeError for options of the wrong type, RangeError for invalid tags", async () => {
  for (const options of ["en", 5, { expectedInputLanguages: "en" }, { expectedInputLanguages: 5 },
                         { expectedInputLanguages: null }, { expectedInputLanguages: {} },
                         { expectedInputLanguages: [Symbol("en")] }]) {
    await assert.rejects(LanguageDetector.create(options), TypeError);
    await assert.rejects(LanguageDetector.availability(options), TypeError);
  }
  await assert.rejects(LanguageDetector.create({ monitor: "no" }), TypeError);
  await assert.rejects(LanguageDetector.create({ signal: {} }), TypeError);
  await assert.rejects(LanguageDetector.create({ expectedInputLanguages: ["e"], monitor: "no" }), TypeError,
                       "the dictionary's types before its tags");
  for (const tag of ["e", "Latn", "enLatnGBfonipa", "11", "en_Latn", "en-Lat", "en-A999", "", "de-"]) {
    for (const method of [LanguageDetector.create, LanguageDetector.availability]) {  // unbound, as the WPT call them
      await assert.rejects(method({ expectedInputLanguages: [tag] }), RangeError, tag);
      await assert.rejects(method({ expectedInputLanguages: ["en", tag] }), RangeError, tag);
    }
  }
  assert.equal(await LanguageDetector.availability(null), "available");
  await assert.rejects(detector.detect(), TypeError);
  await assert.rejects(detector.detect("x", 5), TypeError);
  await assert.rejects(detector.detect("x", { signal: "no" }), TypeError);
  await assert.rejects(detector.detect(Symbol("x")), TypeError);
  await assert.rejects(detector.measureInputUsage(), TypeError);
  assert.throws(() => new LanguageDetector(), TypeError);
});

test("LanguageDetector: measureInputUsage counts UTF-8 bytes; past inputQuota a QuotaExceededError", async () => {
  assert.equal(detector.inputQuota, QUOTA);
  assert.equal(await detector.measureInputUsage("hello"), 5);
  assert.equal(await detector.measureInputUsage("Grüße 🙂"), 12);
  assert.equal(await detector.measureInputUsage(""), 0);
  assert.deepEqual(await detector.detect(" ".repeat(QUOTA)), [{ detectedLanguage: "und", confidence: 1 }],
                   "exactly the quota is taken");
  const isQuota = (e) => isDom("QuotaExceededError")(e) && e.requested === QUOTA + 1 && e.quota === QUOTA;
  await assert.rejects(detector.detect("ü".repeat(QUOTA / 2) + "x"), isQuota);
  assert.equal((await detector.detect("Der Hund schläft."))[0].detectedLanguage, "de");
});

test("LanguageDetector: an aborted call rejects with the signal's reason; the detector keeps working", async () => {
  const before = new AbortController();
  before.abort();
  await assert.rejects(detector.detect("hello", { signal: before.signal }), isDom("AbortError"));
  await assert.rejects(detector.measureInputUsage("hello", { signal: before.signal }), isDom("AbortError"));
  await assert.rejects(LanguageDetector.create({ signal: before.signal }), isDom("AbortError"));
  for (const reason of [undefined, new Error("mine")]) {
    const during = new AbortController();
    const calls = [detector.detect("hello", { signal: during.signal }),
                   detector.measureInputUsage("hello", { signal: during.signal })];
    during.abort(reason);
    for (const call of calls) await assert.rejects(call, (e) => (reason ? e === reason : isDom("AbortError")(e)));
    assert.deepEqual(await detector.detect("hello"), detectLanguages(langidModel, "hello"), "usable after the abort");
  }
});

test("without AbortSignal.any, calls combine their signals by hand, abort as with it, and leave no listener behind", async () => {
  const { getEventListeners } = await import("node:events");
  const any = Object.getOwnPropertyDescriptor(AbortSignal, "any");
  delete AbortSignal.any;  // as in browsers and Node releases before it
  try {
    const want = await expected("A dog runs.", "de");
    const caller = new AbortController();
    const { signal } = caller;
    for (let i = 0; i < 5; ++i) {
      assert.equal(await enDe.translate("A dog runs.", { signal }), want);
      assert.equal((await read(enDe.translateStreaming("A dog runs.", { signal }))).join(""), want);
      assert.equal(await enDe.measureInputUsage("A dog runs.", { signal }), 11);
      assert.deepEqual(await detector.detect("hello", { signal }), detectLanguages(langidModel, "hello"));
    }
    await assert.rejects(enDe.translate("A dog runs.", { signal, html: 3 }), TypeError);
    assert.throws(() => enDe.translateStreaming("A dog runs.", { signal, html: 3 }), TypeError);
    assert.equal(getEventListeners(signal, "abort").length, 0, "each call took its listeners away");
    const reason = new Error("mine");
    const calls = [enDe.translate("A dog runs.", { signal }), read(enDe.translateStreaming("A dog runs.", { signal })),
                   detector.detect("hello", { signal })];
    caller.abort(reason);
    for (const call of calls) await assert.rejects(call, (e) => e === reason);
    const doomed = await Translator.create({ sourceLanguage: "en", targetLanguage: "de" });
    const pending = doomed.translate("A dog runs.");
    doomed.destroy();
    await assert.rejects(pending, isDom("AbortError"));
  } finally {
    if (any) Object.defineProperty(AbortSignal, "any", any);
  }
});

test("LanguageDetector: destroy() aborts pending and later calls; so does create()'s signal", async () => {
  const doomed = await LanguageDetector.create();
  const pending = [doomed.detect("hello"), doomed.measureInputUsage("hello")];
  doomed.destroy();
  doomed.destroy();
  for (const call of [...pending, doomed.detect("hello"), doomed.measureInputUsage("hello")]) {
    await assert.rejects(call, isDom("AbortError"));
  }
  assert.deepEqual(await detector.detect("hello"), detectLanguages(langidModel, "hello"), "the model is still shared");
  await assertCreateSignalDestroys(LanguageDetector.create, (d) => d.detect("hello"));
});

test("LanguageDetector: monitor events, none after an abort; a throwing monitor rejects; a failed load", async () => {
  const served = await serveModel(langid, { slow: true, pieceBytes: 1 << 12 });  // 65 pieces
  try {
    const api = createTranslatorAPI({ model: tiny, languageModel: served.url });
    const thrown = new Error("the monitor says no");
    await assert.rejects(api.LanguageDetector.create({ monitor: () => { throw thrown; } }), (e) => e === thrown);
    await abortCreateAt(api.LanguageDetector.create, 0);
    assert.equal(await api.LanguageDetector.availability(), "downloading", "the load goes on");
    await abortCreateAt(api.LanguageDetector.create, 2 ** -16);
    const handler = [];
    await api.LanguageDetector.create({ monitor: (m) => { m.ondownloadprogress = (e) => handler.push(e.loaded); } });
    assertProgress(handler);
    await abortCreateAt(api.LanguageDetector.create, 1);
    assert.equal(served.requests, 1, "one load for all the creates");
  } finally {
    await served.close();
  }
  const missing = createTranslatorAPI({ model: tiny, languageModel: join(root, "nonexistent.json") });
  assert.equal(await missing.LanguageDetector.availability(), "downloadable");
  for (let i = 0; i < 2; ++i) {  // a failed load is tried again
    await assert.rejects(missing.LanguageDetector.create(),
                         (e) => isDom("OperationError")(e) && /nonexistent\.json/.test(e.message));
  }
  const broken = createTranslatorAPI({ model: tiny, languageModel: readFileSync(shipped).subarray(0, 1000) });
  await assert.rejects(broken.LanguageDetector.create(), (e) => isDom("OperationError")(e) &&
                       /not a language detection model/.test(e.message));
  const bytes = readFileSync(langid);
  const buffer = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length);
  for (const languageModel of [new Uint8Array(bytes), buffer]) {
    const d = await createTranslatorAPI({ model: tiny, languageModel }).LanguageDetector.create();
    assert.deepEqual(await d.detect("Der Hund schläft."), detectLanguages(langidModel, "Der Hund schläft."));
  }
});

test("LanguageDetector, then Translator: translate from the detected language", async () => {
  const text = "Ein Hund läuft im Park.";
  const [{ detectedLanguage }] = await detector.detect(text);
  assert.equal(detectedLanguage, "de");
  const { Translator: T } = createTranslatorAPI({ model: shipped, languageModel: langid });
  const t = await T.create({ sourceLanguage: detectedLanguage, targetLanguage: "en" });
  assert.equal(await t.translate(text), await expected(text, "en"));
});

test("install() defines LanguageDetector only where there is none", async () => {
  const bare = {};
  install(bare, { model: tiny, languageModel: langid });
  const d = Object.getOwnPropertyDescriptor(bare, "LanguageDetector");
  assert.deepEqual([d.writable, d.enumerable, d.configurable], [true, false, true]);
  const detect = await bare.LanguageDetector.create();
  assert.deepEqual(await detect.detect("hello"), detectLanguages(langidModel, "hello"));
  const native = function LanguageDetector() {};
  const taken = { LanguageDetector: native };
  const installed = install(taken, { model: tiny, languageModel: langid });
  assert.equal(taken.LanguageDetector, native, "an existing LanguageDetector is kept");
  assert.equal(taken.Translator, installed, "the Translator is defined beside it");
  assert.equal(globalThis.LanguageDetector, undefined);
  try {
    install(undefined, { model: tiny, languageModel: langid });
    assert.equal(typeof globalThis.LanguageDetector.create, "function");
    const first = globalThis.LanguageDetector;
    install(globalThis, { model: shipped, languageModel: langid });
    assert.equal(globalThis.LanguageDetector, first, "installed once");
  } finally {
    delete globalThis.Translator;
    delete globalThis.LanguageDetector;
  }
});
