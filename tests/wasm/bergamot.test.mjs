// heed's models in Bergamot's WebAssembly engine (npm
// @browsermt/bergamot-translator, the engine of Firefox's translations):
// models/recipe/marian.py export, then Bergamot's output against heed's
// native one on the same sentences.
// Run by the README's test command: node --test tests/wasm/
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { heed } from "../native.mjs";
import { wordListSentences } from "../sentences.mjs";
import { loadBergamot } from "../../bench/peers/bergamot.mjs";

const root = new URL("../../", import.meta.url).pathname;
const tiny = join(root, "tests/fixtures/tiny_marian.heed");

function exportModel(model) {
  const out = mkdtempSync(join(tmpdir(), "heed-marian-"));
  execFileSync("/usr/bin/python3", [join(root, "models/recipe/marian.py"), "export",
    "--model", model, "--out", out], { stdio: ["ignore", "ignore", "inherit"] });
  return out;
}

function heedGreedy(model, to, lines, extra = []) {
  return execFileSync(heed, ["translate", "--model", model, "--to", to, "--beam", "1",
    "--no-repeat-ngram-size", "0", "--copy-unknown", "0", ...extra], { input: lines.join("\n") + "\n" })
    .toString().split("\n").slice(0, lines.length);
}

const sentences = {
  de: ["A dog runs in the park.", "A little girl climbing into a wooden playhouse.",
    "Two men are playing football on a meadow."],
  en: ["Zwei Männer spielen Fußball auf einer Wiese.", "Ein Hund.",
    "Eine Frau sitzt auf einer Bank."],
};

test("a Marian-convention model runs in Bergamot as in heed (float32, greedy)", async () => {
  const dir = exportModel(tiny);
  const bergamot = await loadBergamot({ dir, config: { "gemm-precision": "float32" } });
  try {
    for (const [to, lines] of Object.entries(sentences)) {
      const got = await bergamot.translate(lines.map((s) => `<2${to}> ${s}`));
      const want = heedGreedy(tiny, to, lines);
      got.forEach((g, i) => {
        // A random model rarely ends a sentence: the engines' length limits
        // differ (Marian 2·source, heed 2·source + 10), so the shorter
        // output is a prefix of the longer.
        const [short, long] = g.length <= want[i].length ? [g, want[i]] : [want[i], g];
        assert.ok(short.length >= 10, `${to} ${i}: too short to compare: ${JSON.stringify(short)}`);
        assert.ok(long.startsWith(short), `${to} ${i}: Bergamot ${JSON.stringify(g)} vs heed ${JSON.stringify(want[i])}`);
      });
    }
  } finally {
    await bergamot.close();
  }
});

test("the shipped model runs in Bergamot: float32 output identical to heed's, int8 mostly", async () => {
  const shipped = join(root, "models/heed-en-de.heed");
  const dir = exportModel(shipped);
  // 20 of the word-list sentences, every subject and verb.
  const lines = {
    de: wordListSentences("en").filter((_, i) => i % 10 === 0),
    en: wordListSentences("de").filter((_, i) => i % 10 === 0),
  };
  for (const [precision, model, floor] of [["float32", shipped, 1.0],
    ["int8shiftAll", join(root, "models/heed-en-de-int8.heed"), 0.75]]) {
    const bergamot = await loadBergamot({ dir, config: { "gemm-precision": precision } });
    try {
      for (const [to, src] of Object.entries(lines)) {
        const got = await bergamot.translate(src.map((x) => `<2${to}> ${x}`));
        const want = heedGreedy(model, to, src);
        const same = got.filter((g, i) => g === want[i]).length;
        assert.ok(same >= floor * src.length,
          `${precision} into ${to}: ${same} of ${src.length} identical; first: ${got[0]} / ${want[0]}`);
      }
    } finally {
      await bergamot.close();
    }
  }
});

test("one int8 scheme in both engines: Marian's, calibrated by marian_int8.py", async () => {
  const work = mkdtempSync(join(tmpdir(), "heed-marian-int8-"));
  // Ranges measured on word-list sentences other than the ones compared.
  const calibration = {
    de: wordListSentences("en").filter((_, i) => i % 10 === 5),
    en: wordListSentences("de").filter((_, i) => i % 10 === 5),
  };
  const texts = Object.entries(calibration).flatMap(([to, lines]) => {
    const file = join(work, `${to}.txt`);
    writeFileSync(file, lines.join("\n") + "\n");
    return ["--text", `${to}:${file}`];
  });
  const model = join(work, "int8-marian.heed");
  execFileSync("/usr/bin/python3", [join(root, "models/recipe/marian_int8.py"),
    "--model", join(root, "models/heed-en-de.heed"), ...texts, "--out", model],
  { stdio: ["ignore", "ignore", "inherit"] });
  const dir = exportModel(model);
  assert.match(readFileSync(join(dir, "config.yml"), "utf8"), /gemm-precision: int8shiftAlphaAll/);
  const bergamot = await loadBergamot({ dir });
  try {
    for (const [to, lang] of [["de", "en"], ["en", "de"]]) {
      const src = wordListSentences(lang).filter((_, i) => i % 10 === 0);
      const got = await bergamot.translate(src.map((x) => `<2${to}> ${x}`));
      // SSE4 rounds to 127 levels as intgemm does (AVX2 rounds again).
      const want = heedGreedy(model, to, src, ["--simd", "SSE4"]);
      const same = got.filter((g, i) => g === want[i]).length;
      assert.ok(same >= 0.75 * src.length,
        `into ${to}: ${same} of ${src.length} identical; first: ${got[0]} / ${want[0]}`);
    }
  } finally {
    await bergamot.close();
  }
});

test("a model in heed's own conventions is refused with the reason", () => {
  const r = spawnSync("/usr/bin/python3", [join(root, "models/recipe/marian.py"), "export",
    "--model", join(root, "tests/fixtures/tiny_postnorm.heed"),
    "--out", mkdtempSync(join(tmpdir(), "heed-marian-"))]);
  assert.notEqual(r.status, 0);
  assert.match(r.stderr.toString(), /cannot export heed's own positions or decoder start/);
});
