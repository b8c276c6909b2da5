// heed's Translator and LanguageDetector APIs (translator-api.js) in
// headless Chromium: the web-platform-tests of ai/translator and
// ai/language_detection, ported (tests/wasm/wpt/), run on the shipped int8
// model and language detector; then the polyfill, the quota and a module
// Web Worker (translator-api-worker.html). Nothing is fetched from
// elsewhere.
//
// The ported WPT files, one page visit each (a fresh page, as WPT runs
// them): translator.optional, translator-bad-input, translator-locale,
// translator (monitor), translator-create-user-activation.optional,
// translator-translate-concurrent.optional,
// translator-translate-streaming-concurrent.optional,
// translator-translate-post-abort.tentative and
// translator-translate-streaming-post-abort.tentative, with
// ai/resources/util.js, ai/resources/locale-util.js and
// ai/translator/resources/util.js. Adaptations:
// - the pair is English→German (the WPT: English→Japanese), and the
//   expected translation of "hello" is heed's own (its translate() in
//   Node, passed to the page), not "こんにちは";
// - no user activation: createTranslator() is Translator.create() without
//   test_driver.bless(); the NotAllowedError without activation is left
//   out. In its place the first test of translator.optional checks that
//   the pair is "downloadable" before the first create(), and
//   translator-create-user-activation keeps only its availability checks
//   (assert_implements_optional becomes an assertion that the pair is
//   not "unavailable");
// - "Simple Translator.translateStreaming() call" also checks that the
//   chunks join to the translation;
// - translator-locale awaits its rejections (the WPT leave them floating);
// - readStream() and kTestPrompt2, which the concurrent tests use, are
//   defined in wpt/resources/util.js;
// - no permissions policy, no iframes; testharness.js is a small shim of
//   our own (wpt/testharness.js); gc() is Chromium's, with --expose-gc;
// - the WPT call the global Translator: the page puts heed's in place of
//   any the browser has.
// Left out: the tentative files of the older API (ai.translator,
// AITranslator, canTranslate) that these replaced.
//
// And of ai/language_detection: detector, detector.optional,
// detector-locale, language-detector-detect-concurrent.tentative and
// language-detector-detect-post-abort.tentative, with
// ai/language_detection/resources/util.js and the assertions of
// ai/resources/locale-util.js (assert_is_canonical, assert_is_variation,
// assert_availability_consistent). Adaptations:
// - English and German, the languages heed's model detects: in
//   detector.optional, "detects the correct language" has an English and
//   a German sentence (the WPT: nineteen languages), and
//   expectedInputLanguages is ["en", "de"] (the WPT: ["en", "es"]);
//   detector-locale keeps locale-util's English and Spanish tags (Spanish
//   is "unavailable", which the test allows);
// - no user activation: createLanguageDetector() is
//   LanguageDetector.create() without test_driver.bless(); in place of the
//   NotAllowedError, the first test of detector checks that the detector
//   is "downloadable" before the first create();
// - detector awaits testMonitor(), and detector-locale its rejections
//   (the WPT leave them floating);
// - the page puts heed's LanguageDetector in place of any the browser has.
// Left out: detector-iframe and availability-detached-crash (iframes,
// permissions policy), and the tentative files of the older API
// (ai.languageDetector, canDetect, capabilities).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { fork } from "node:child_process";
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { chromium } from "playwright-core";

const root = new URL("../../", import.meta.url).pathname;
const model = "/models/heed-en-de-int8.heed";
const languageModel = "/models/langid-en-de.json";
const { createTranslator } = await import(join(root, "build/wasm/dist/heed.js"));
const { detectLanguages, loadLanguageModel } = await import(join(root, "build/wasm/dist/langid.js"));
const heed = await createTranslator({ model: join(root, model) });
const langid = loadLanguageModel(readFileSync(join(root, languageModel)));
const wptFiles = (dir) => readdirSync(join(root, "tests/wasm/wpt", dir)).filter((f) => f.endsWith(".js")).sort()
  .map((f) => `${dir}/${f}`);

let server, address, browser;
const requests = [];

before(async () => {
  server = fork(join(root, "scripts/serve.mjs"), ["--port", "0"], { silent: true });
  address = await new Promise((resolve) => server.on("message", (m) => {
    if (m.address) resolve(m.address);
    if (m.request) requests.push(m.request);
  }));
  browser = await chromium.launch({
    executablePath: "/usr/bin/chromium", headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--js-flags=--expose-gc",
           "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
});

after(async () => {
  await browser?.close();
  server?.kill();
  heed.dispose();
});

// Opens a page and waits for its window.result; errors on the page and
// requests to other origins are collected.
async function visit(path) {
  const page = await browser.newPage();
  const errors = [], foreign = [];
  page.on("console", (m) => m.type() === "error" && errors.push(m.text()));
  page.on("pageerror", (e) => errors.push(String(e)));
  page.on("request", (r) => { if (!r.url().startsWith(address)) foreign.push(r.url()); });
  try {
    await page.goto(`${address}${path}`);
    await page.waitForFunction(() => window.result !== undefined, null, { timeout: 180000 });
    return { result: await page.evaluate(() => window.result), errors, foreign };
  } finally {
    await page.close();
  }
}

// Runs the ported WPT files, each on a page of its own: every test and
// every assertion passes.
async function runWpt(t, files, query) {
  let passed = 0, tests = 0, assertions = 0;
  for (const file of files) {
    await t.test(file, async (st) => {
      const { result, errors, foreign } = await visit(
        `tests/wasm/translator-api-wpt.html?test=${file}&model=${model}&languageModel=${languageModel}${query}`);
      assert.equal(result.error, undefined, result.error);
      const failed = result.results.filter((r) => r.status !== "PASS");
      assert.deepEqual(failed, [], JSON.stringify(failed, null, 1));
      assert.ok(result.results.length > 0, "the file has tests");
      assert.equal(result.passed, result.assertions, "every assertion passed");
      assert.deepEqual(foreign, []);
      assert.deepEqual(errors, []);
      st.diagnostic(`${result.results.length} tests, ${result.assertions} assertions passed` +
                    ` (Chromium's own: ${JSON.stringify(result.native)})`);
      ++passed;
      tests += result.results.length;
      assertions += result.assertions;
    });
  }
  t.diagnostic(`${passed} of ${files.length} files passed: ${tests} tests, ${assertions} assertions`);
}

test("the web-platform-tests of ai/translator, ported, pass in Chromium", async (t) => {
  const hello = (await heed.translate("hello", { to: "de" })).text;
  await runWpt(t, wptFiles("translator"), `&hello=${encodeURIComponent(hello)}`);
});

test("the web-platform-tests of ai/language_detection, ported, pass in Chromium", async (t) => {
  await runWpt(t, wptFiles("language_detection"), "");
});

test("install() defines Translator, LanguageDetector only where absent; quota; a module Web Worker", async () => {
  const texts = ["hello", "A dog runs in the park.  Two men play football.\n\nThe girl sings."];
  const wants = [];
  for (const text of texts) wants.push((await heed.translate(text, { to: "de" })).text);
  const { result, errors, foreign } = await visit(
    `tests/wasm/translator-api-worker.html?model=${model}&languageModel=${languageModel}` +
    `&texts=${encodeURIComponent(JSON.stringify(texts))}`);
  assert.equal(result.error, undefined, result.error);
  const { polyfill, quota, page, worker } = result;
  for (const [name, p] of Object.entries(polyfill)) {
    if (p.native !== "undefined") assert.ok(p.keptIsNative, `Chromium's own ${name} is kept`);
    assert.ok(p.keptSentinel, `an existing ${name} is kept`);
    assert.ok(p.defined, `${name} defined where there was none`);
    assert.ok(p.returns, "install() returns the Translator");
    assert.deepEqual(p.descriptor, [true, false, true], `${name}: writable, not enumerable, configurable`);
  }
  assert.deepEqual(quota, { name: "QuotaExceededError", isQuotaExceededError: true,
                            requested: 2 ** 20 + 1, quota: 2 ** 20 });
  assert.deepEqual(page, wants, "the page's translations are heed's own");
  assert.equal(worker.error, undefined, worker.error);
  assert.equal(worker.before, "undefined");
  assert.ok(worker.installed, "installed on the worker's global");
  assert.deepEqual(worker.availability, ["downloadable", "available"]);
  assert.deepEqual(worker.languages, ["en", "de"]);
  assert.equal(worker.progress[0], 0);
  assert.equal(worker.progress.at(-1), 1);
  assert.deepEqual(worker.translated, wants);
  assert.deepEqual(worker.streamed.map((chunks) => chunks.join("")), wants);
  assert.ok(worker.streamed[1].length >= 3, `a chunk per sentence: ${JSON.stringify(worker.streamed[1])}`);
  assert.deepEqual(worker.detector, { availability: ["downloadable", "available"], expected: ["en", "de"],
                                      detected: texts.map((text) => detectLanguages(langid, text)) });
  assert.ok(requests.some((u) => u.includes("translator-api-worker.mjs")), "the worker script was loaded");
  assert.deepEqual(foreign, []);
  assert.deepEqual(errors, []);
});
