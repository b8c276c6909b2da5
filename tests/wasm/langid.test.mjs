// The language detector (wasm/langid.js) against the recipe that trained
// it (models/recipe/langid.py wrote models/eval/langid.json's confidences),
// the specification's post-processing, held-out sentences, and bad files.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { confidences, detectLanguages, loadLanguageModel, words } from "../../wasm/langid.js";

const root = new URL("../../", import.meta.url).pathname;
const file = readFileSync(join(root, "models/langid-en-de.json"));
const model = loadLanguageModel(file);
const { golden } = JSON.parse(readFileSync(join(root, "models/eval/langid.json"), "utf-8"));

test("the confidences equal the recipe's own", () => {
  assert.ok(golden.length >= 40);
  for (const { text, confidences: want } of golden) {
    const got = confidences(model, text);
    if (want === null) {
      assert.equal(got, null, text);
      continue;
    }
    assert.equal(got.length, want.length);
    got.forEach((p, i) => assert.ok(Math.abs(p - want[i]) <= 1e-9 + 1e-7 * want[i], `${text}: ${p} vs ${want[i]}`));
  }
});

test("results follow the specification: by confidence, und last, summing to 1", () => {
  for (const text of ["Der Hund schläft.", "The dog sleeps.", "Hund", "Bonjour tout le monde", "Das ist a test", "42!", ""]) {
    const r = detectLanguages(model, text);
    assert.equal(r.at(-1).detectedLanguage, "und", text);
    const sum = r.reduce((s, x) => s + x.confidence, 0);
    assert.ok(Math.abs(sum - 1) < 1e-12, `${text}: ${sum}`);
    for (let i = 1; i < r.length - 1; ++i) assert.ok(r[i - 1].confidence >= r[i].confidence);
    for (const x of r) assert.ok(x.confidence >= 0 && x.confidence <= 1);
    // A language listed is at least as likely as none of them.
    const p = confidences(model, text);
    for (const x of r.slice(0, -1)) assert.ok(x.confidence >= p.at(-1));
  }
  assert.deepEqual(detectLanguages(model, "42!"), [{ detectedLanguage: "und", confidence: 1 }]);
  assert.equal(detectLanguages(model, "Ich habe heute keine Zeit.")[0].detectedLanguage, "de");
  assert.equal(detectLanguages(model, "I have no time today.")[0].detectedLanguage, "en");
  assert.equal(detectLanguages(model, "Je n'ai pas le temps aujourd'hui.")[0].detectedLanguage, "und");
});

test("every everyday sentence is detected as its language", () => {
  for (const [lang, ext] of [["en", "en"], ["de", "de"]]) {
    const lines = readFileSync(join(root, `models/eval/everyday.${ext}`), "utf-8").split("\n").filter(Boolean);
    assert.ok(lines.length >= 50);
    for (const line of lines) assert.equal(detectLanguages(model, line)[0].detectedLanguage, lang, line);
  }
});

test("words are runs of letters, lower-cased after NFC", () => {
  assert.deepEqual(words("Straße, GRÜN-weiß 42x"), ["straße", "grün", "weiß", "x"]);
  assert.deepEqual(words("Cafe\u0301"), ["café"]);
  assert.deepEqual(words("  ... 17 "), []);
});

test("a file that is not a detection model is refused with a reason", () => {
  const good = JSON.parse(file.toString("utf-8"));
  const bad = [
    [Buffer.from("not json"), /not a language detection model/],
    [Buffer.from([0xff, 0xfe, 0x00]), /not a language detection model/],
    [{ ...good, format: "other" }, /format/],
    [{ ...good, version: 2 }, /format/],
    [{ ...good, languages: ["en", "de"] }, /languages/],
    [{ ...good, buckets: 3 }, /buckets/],
    [{ ...good, buckets: 2 ** 30 }, /buckets/],
    [{ ...good, maxN: 0 }, /maxN/],
    [{ ...good, temperature: -1 }, /temperature/],
    [{ ...good, offset: [0, 0] }, /offset or scale/],
    [{ ...good, scale: [1, "x", 1] }, /offset or scale/],
    [{ ...good, table: "%%%" }, /table/],
    [{ ...good, table: good.table.slice(0, 400) }, /table size/],
    [null, /format/],
  ];
  for (const [value, message] of bad) {
    const bytes = Buffer.isBuffer(value) ? value : Buffer.from(JSON.stringify(value));
    assert.throws(() => loadLanguageModel(bytes), message);
  }
});
