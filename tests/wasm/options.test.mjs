// wasm/options.js and heed.d.ts against the engine's one options table
// (core/option_table.cc, exported as optionTable()): the same names, kinds,
// ranges; every value the JS check lets through is one the engine takes,
// and every value just past a range is refused before it reaches the engine.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";

const root = new URL("../../", import.meta.url).pathname;
const dist = join(root, "build/wasm/dist");
const { OPTIONS, checkOptions } = await import(join(dist, "options.js"));
const { loadEngine } = await import(join(dist, "load.js"));
const { createTranslator } = await import(join(dist, "heed.js"));
const { engine } = await loadEngine(undefined, 1);
const table = engine.optionTable();

test("options.js names every option of the engine's table, with its kind and range", () => {
  assert.ok(table.length >= 14, `${table.length} options`);
  assert.deepEqual(Object.keys(OPTIONS).sort(), table.map((o) => o.name).sort());
  for (const o of table) {
    const mine = OPTIONS[o.name];
    assert.equal(mine.kind, o.kind, o.name);
    if (o.kind === "count" || o.kind === "real") {
      assert.deepEqual([mine.min, mine.max, mine.aboveMin ?? false], [o.min, o.max, o.aboveMin], o.name);
      const lo = o.aboveMin ? o.min : o.min - (o.kind === "count" ? 1 : 1e-3);
      assert.ok(o.default >= o.min && o.default <= o.max, `${o.name} default ${o.default}`);
      assert.throws(() => checkOptions({ [o.name]: lo }), RangeError, o.name);
      assert.throws(() => checkOptions({ [o.name]: o.max + 1 }), RangeError, o.name);
      assert.doesNotThrow(() => checkOptions({ [o.name]: o.max }), o.name);
    }
  }
});

test("heed.d.ts declares every option of the table", () => {
  const dts = readFileSync(join(dist, "heed.d.ts"), "utf8");
  const block = dts.slice(dts.indexOf("export interface TranslateOptions"));
  for (const o of table) {
    // A text option with a fixed set of values is declared as their union.
    const values = OPTIONS[o.name].values?.map((v) => `"${v}"`).join(" \\| ");
    const type = values ?? { count: "number", real: "number", switch: "boolean", text: "string" }[o.kind];
    assert.match(block, new RegExp(`\\b${o.name}\\?: ${type};`), o.name);
  }
});

test("the engine takes each option at both ends of its range", async () => {
  const t = await createTranslator({ model: join(root, "tests/fixtures/tiny_prenorm.heed"), worker: false });
  try {
    // Limits that would refuse the text itself are left at their defaults.
    const skip = new Set(["maxInputBytes", "maxAttentionBytes", "maxSentenceTokens"]);
    for (const o of table.filter((x) => x.kind === "count" || x.kind === "real")) {
      if (skip.has(o.name)) continue;
      const lo = o.aboveMin ? o.min + 1e-3 : o.min;
      const extra = o.name === "nbest" ? { beam: 64 } : {};
      for (const v of [lo, o.max]) {
        const r = await t.translate("A dog.", { to: "de", beam: 2, ...extra, [o.name]: v });
        assert.equal(typeof r.text, "string", `${o.name} ${v}`);
      }
    }
    // Each value of a text option with a fixed set is one the engine takes.
    for (const [name, spec] of Object.entries(OPTIONS).filter(([, s]) => s.values)) {
      for (const v of spec.values) {
        const r = await t.translate("A dog.", { to: "de", [name]: v });
        assert.equal(typeof r.text, "string", `${name} ${v}`);
      }
      assert.throws(() => checkOptions({ [name]: "sideways" }), TypeError, name);
    }
  } finally {
    t.dispose();
  }
});
