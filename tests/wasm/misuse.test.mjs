// Misuse of the JS module and the development server, as a hostile caller
// would try it: each gets a typed rejection (never a synchronous throw or a
// request left pending), Node exits on its own afterwards, and the server
// answers a malformed URL with 400 and keeps serving.
import { test } from "node:test";
import assert from "node:assert/strict";
import { fork, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const root = new URL("../../", import.meta.url).pathname;
const heedJs = join(root, "build/wasm/dist/heed.js");
const model = join(root, "tests/fixtures/tiny_prenorm.heed");
const { createTranslator } = await import(heedJs);

// Runs `body` (an async function's source, given createTranslator and the
// model path) in a fresh Node; it must print "done" and Node must exit by
// itself within the timeout, which a pending worker request would prevent.
function inFreshNode(body) {
  const script = `const { createTranslator } = await import(${JSON.stringify(heedJs)});
    const model = ${JSON.stringify(model)};
    await (async () => { ${body} })();
    console.log("done");`;
  // A file, not --eval: workers inherit execArgv, and --input-type breaks them.
  const dir = mkdtempSync(join(tmpdir(), "heed-misuse-"));
  writeFileSync(join(dir, "case.mjs"), script);
  const r = spawnSync(process.execPath, [join(dir, "case.mjs")], { encoding: "utf8", timeout: 60000 });
  rmSync(dir, { recursive: true });
  assert.equal(r.error, undefined, `Node did not exit: ${r.stderr}`);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /done/);
}

for (const worker of [false, true]) {
  const mode = worker ? "on a worker" : "in the calling thread";

  test(`bad options reject with a TypeError or RangeError naming them, ${mode}`, async () => {
    const t = await createTranslator({ model, worker });
    try {
      const cases = [
        [{ to: "de", constructor: 1 }, TypeError, /unknown option 'constructor'/],
        [JSON.parse('{"to": "de", "__proto__": {}}'), TypeError, /unknown option '__proto__'/],
        [{ to: "de", toString: 1 }, TypeError, /unknown option 'toString'/],
        [{ to: "de", prefixPieces: [, "▁Hund"] }, TypeError, /prefixPieces/],  // eslint-disable-line no-sparse-arrays
        [{ to: "de", signal: "x" }, TypeError, /signal/],
        [{ to: "de", repetitionPenalty: Number.MIN_VALUE }, RangeError, /repetitionPenalty/],
        [{ to: "de", beam: () => 4 }, RangeError, /beam/],
        [{ to: "de", [Symbol("s")]: 1, onSentence: 5 }, TypeError, /onSentence/],
      ];
      for (const [options, type, message] of cases) {
        await assert.rejects(t.translate("A dog.", options), (e) => {
          assert.ok(e instanceof type && message.test(e.message), `${Object.keys(options)}: ${e.name}: ${e.message}`);
          return true;
        });
      }
      await assert.rejects(t.translate(Symbol("text"), { to: "de" }), TypeError);
      await assert.rejects(t.split(Symbol("text")), TypeError);
      await assert.rejects(t.positionalEncoding(2 ** 32 + 5), RangeError);
      await assert.rejects(t.positionalEncoding(4097), RangeError);
      assert.equal((await t.positionalEncoding(4)).values.length, 4 * t.info().config.d_model);
      // The translator still works.
      assert.equal((await t.translate("A dog.", { to: "de" })).sentences.length, 1);
    } finally {
      t.dispose();
    }
  });

  test(`an options getter or Proxy that throws rejects the call, not throws, ${mode}`, async () => {
    const t = await createTranslator({ model, worker });
    try {
      const getter = { to: "de", get beam() { throw new Error("getter says no"); } };
      const proxy = new Proxy({}, { ownKeys() { throw new Error("ownKeys says no"); } });
      for (const options of [getter, proxy]) {
        let promise;
        assert.doesNotThrow(() => { promise = t.translate("A dog.", options); });
        await assert.rejects(promise, /says no/);
      }
    } finally {
      t.dispose();
    }
  });
}

test("dispose() inside onSentence stops the call at its next step and rejects it as disposed", async () => {
  const t = await createTranslator({ model, worker: false });
  const paragraph = Array.from({ length: 40 }, (_, i) => `A dog number ${i} runs.`).join(" ");
  let seen = 0;
  await assert.rejects(t.translate(paragraph, { to: "de", maxBatch: 1, onSentence: () => {
    ++seen;
    t.dispose();
  } }), /disposed/);
  assert.equal(seen, 1, "sentences after the dispose");
  await assert.rejects(t.translate("A dog.", { to: "de" }), /disposed/);
  assert.doesNotThrow(() => t.dispose());
});

test("a forced prefix the model cannot write exactly is refused", async () => {
  const t = await createTranslator({ model: join(root, "models/heed-en-de-int8.heed"), worker: false });
  try {
    await assert.rejects(t.translate("A dog runs.", { to: "de", prefix: "日本語テキスト 🐶" }), /cannot write/);
    await assert.rejects(t.translate("A dog runs.", { to: "de", prefix: "</s>" }), /cannot write/);
    for (const piece of ["<2de>", "<2en>", "<unk>", "</s>"]) {
      await assert.rejects(t.translate("A dog runs.", { to: "de", prefixPieces: [piece] }),
        /not a piece the model can produce/, piece);
    }
    const r = await t.translate("A dog runs.", { to: "de", prefix: "Ein Hund" });
    assert.match(r.text, /^Ein Hund/);
  } finally {
    t.dispose();
  }
});

test("with a worker, arguments that cannot reach it leave nothing pending: Node exits", () => {
  inFreshNode(`
    const t = await createTranslator({ model, worker: true });
    for (const call of [() => t.translate(Symbol()), () => t.translate("A dog.", { to: "de", x: () => 1 }),
                        () => t.split(Symbol())]) {
      await call().then(() => { throw new Error("resolved"); }, (e) => {
        if (!(e instanceof TypeError)) throw new Error("not a TypeError: " + e);
      });
    }
    await t.translate("A dog.", { to: "de" });`);
});

test("with a worker, an onProgress that throws rejects createTranslator and Node exits", () => {
  inFreshNode(`
    let rejected = null;
    await createTranslator({ model, worker: true, onProgress: () => { throw new Error("progress says no"); } })
      .then((t) => t.dispose(), (e) => { rejected = e; });
    if (!rejected || !/progress says no/.test(rejected.message)) throw new Error("not rejected: " + rejected);`);
});

test("the development server answers a malformed URL with 400 and keeps serving", async () => {
  const server = fork(join(root, "scripts/serve.mjs"), ["--port", "0"], { silent: true });
  try {
    const address = await new Promise((resolve) => server.on("message", (m) => m.address && resolve(m.address)));
    const bad = await fetch(`${address}%E0%A4%A`);
    assert.equal(bad.status, 400);
    const good = await fetch(`${address}README.md`);
    assert.equal(good.status, 200);
  } finally {
    server.kill();
  }
});
