// Misuse of the JS module and the development server, as a hostile caller
// would try it: each gets a typed rejection (never a synchronous throw or a
// request left pending), Node exits on its own afterwards, and the server
// answers a malformed URL with 400 and keeps serving.
import { test } from "node:test";
import assert from "node:assert/strict";
import { fork, spawnSync } from "node:child_process";
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import vm from "node:vm";

const root = new URL("../../", import.meta.url).pathname;
const heedJs = join(root, "build/wasm/dist/heed.js");
const model = join(root, "tests/fixtures/tiny_prenorm.heed");
const { createTranslator } = await import(heedJs);

// A paragraph of n short sentences: with maxBatch 1, n decoding batches.
const paragraphOf = (n) => Array.from({ length: n }, (_, i) => `A dog number ${i} runs.`).join(" ");

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
        [{ to: "de", maskHeads: [, { kind: "cross", layer: 0, head: 0 }] }, TypeError, /maskHeads kind/],  // eslint-disable-line no-sparse-arrays
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

  test(`createTranslator refuses what is not its options with a TypeError naming it, ${mode}`, async () => {
    const cases = [
      [null, /options object/],
      ["models/x.heed", /options object/],
      [{ modelUrl: model }, /unknown createTranslator option 'modelUrl'/],
      [{ model, signal: new AbortController().signal }, /unknown createTranslator option 'signal'/],
      [{}, /model must be/],
      [{ model: new Blob([]) }, /model must be/],
      [{ model: [1, 2, 3] }, /model must be/],
      [{ model, onProgress: "yes" }, /onProgress must be a function/],
    ];
    for (const [options, message] of cases) {
      await assert.rejects(createTranslator(options === null || typeof options !== "object" ? options
        : { ...options, worker }), (e) => {
        assert.ok(e instanceof TypeError && message.test(e.message), `${String(options)}: ${e.name}: ${e.message}`);
        return true;
      });
    }
  });

  test(`a result handed out sentence by sentence keeps the whole text's fields, ${mode}`, async () => {
    const t = await createTranslator({ model, worker });
    try {
      for (const [text, options] of [['<p><a href="/x">A dog</a> runs. <b>A cat</b> sleeps.</p>', { html: true }],
                                     ["A dog runs. A cat sleeps.", { alignments: true }]]) {
        const whole = await t.translate(text, { to: "de", ...options });
        let seen = 0;
        const streamed = await t.translate(text, { to: "de", ...options, onSentence: () => ++seen });
        assert.equal(seen, 2);
        for (const field of ["text", "tags", "alignment", "sourceTokens", "targetTokens", "score", "nbest", "threads"]) {
          assert.deepEqual(streamed[field], whole[field], field);
        }
        assert.ok(options.html ? whole.tags.length === 2 : whole.alignment.length > 0);
      }
    } finally {
      t.dispose();
    }
  });

  test(`a queued request aborted while it waits rejects at once, not when its turn comes, ${mode}`, async () => {
    const t = await createTranslator({ model, worker });
    try {
      let firstDone = false;
      const first = t.translate(paragraphOf(60), { to: "de", maxBatch: 1 }).then(() => { firstDone = true; });
      const controller = new AbortController();
      const second = t.translate("A dog.", { to: "de", signal: controller.signal });
      controller.abort();
      await assert.rejects(second, (e) => e.name === "AbortError");
      await assert.rejects(t.translate("A dog.", { to: "de", signal: controller.signal }), (e) => e.name === "AbortError");
      assert.equal(firstDone, false, "the abort waited for the request ahead of it");
      await first;
      assert.equal((await t.translate("A dog.", { to: "de" })).sentences.length, 1);
    } finally {
      t.dispose();
    }
  });

  test(`a model's bytes from another realm (a vm context, an iframe) load, ${mode}`, async () => {
    const bytes = readFileSync(model);
    for (const foreign of [vm.runInNewContext("(b) => new Uint8Array(b)")(bytes),
                           vm.runInNewContext("(b) => new Uint8Array(b).buffer")(bytes)]) {
      assert.equal(foreign instanceof Uint8Array || foreign instanceof ArrayBuffer, false);
      const t = await createTranslator({ model: foreign, worker });
      try {
        assert.equal((await t.translate("A dog.", { to: "de" })).sentences.length, 1);
      } finally {
        t.dispose();
      }
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

// With or without a call of its own on the same engine from onSentence
// (info()) before the dispose().
for (const nested of [false, true]) {
  test(`dispose() inside onSentence stops the call at its next step and rejects it as disposed${
    nested ? ", after another call inside onSentence" : ""}`, async () => {
    const t = await createTranslator({ model, worker: false });
    let seen = 0;
    await assert.rejects(t.translate(paragraphOf(40), { to: "de", maxBatch: 1, onSentence: () => {
      ++seen;
      if (nested) assert.equal(t.info().threads, 1);
      t.dispose();
    } }), /disposed/);
    assert.equal(seen, 1, "sentences after the dispose");
    await assert.rejects(t.translate("A dog.", { to: "de" }), /disposed/);
    assert.doesNotThrow(() => t.dispose());
  });
}

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

// A worker translator stopped by restarting its worker, as on a page that
// is not cross-origin isolated: Node's SharedArrayBuffer hidden from
// heed.js while createTranslator decides (synchronously, before it spawns
// the worker, which Node cannot do without it).
const withoutSharedMemory = `const SAB = globalThis.SharedArrayBuffer;
    const restarting = (options) => {
      delete globalThis.SharedArrayBuffer;
      try {
        return createTranslator({ worker: true, ...options });
      } finally {
        globalThis.SharedArrayBuffer = SAB;
      }
    };
    const paragraph = ${JSON.stringify(paragraphOf(40))};
    const check = (ok, what) => { if (!ok) throw new Error(what); };`;

test("with a worker restarted on abort, dispose() right after the abort leaves no worker loading the model", () => {
  inFreshNode(`${withoutSharedMemory}
    let progress = 0;
    const t = await restarting({ model, onProgress: () => ++progress });
    const controller = new AbortController();
    const running = t.translate(paragraph, { to: "de", maxBatch: 1, signal: controller.signal,
                                             onSentence: () => controller.abort() });
    await running.catch((e) => check(e.name === "AbortError", "not aborted: " + e));
    t.dispose();
    const before = progress;
    await new Promise((resolve) => setTimeout(resolve, 3000));
    check(progress === before, "a worker loaded the model after dispose()");`);
});

test("with a worker restarted on abort, a request aborted while the restart runs is not translated", () => {
  inFreshNode(`${withoutSharedMemory}
    let loads = 0;
    const first = new AbortController(), second = new AbortController();
    // The second load is the restart's: the request below waits for it.
    const t = await restarting({ model, onProgress: () => ++loads === 2 && second.abort() });
    const running = t.translate(paragraph, { to: "de", maxBatch: 1, signal: first.signal,
                                             onSentence: () => first.abort() });
    await running.catch((e) => check(e.name === "AbortError", "not aborted: " + e));
    const waiting = t.translate(paragraph, { to: "de", signal: second.signal });
    await waiting.then(() => check(false, "translated"), (e) => check(e.name === "AbortError", String(e)));
    check(second.signal.aborted, "aborted before the restart's load");
    check((await t.translate("A dog.", { to: "de" })).sentences.length === 1, "no longer translates");
    check(loads === 2, "the abort did not restart the worker: " + loads + " loads");
    t.dispose();`);
});

test("with a worker restarted on abort, another caller's request waiting on the old worker is answered by the new one", () => {
  inFreshNode(`${withoutSharedMemory}
    const t = await restarting({ model });
    const controller = new AbortController();
    let splitting = null;
    await t.translate(paragraph, { to: "de", maxBatch: 1, signal: controller.signal, onSentence: () => {
      if (splitting) controller.abort();  // the split waits on the worker, behind the translation
      else splitting = t.split("A dog runs. A cat sleeps.");
    } }).then(() => check(false, "not aborted"), (e) => check(e.name === "AbortError", String(e)));
    const segments = await splitting;
    check(segments.filter((s) => s.sentence).length === 2, JSON.stringify(segments));
    t.dispose();`);
});

test("with a worker restarted on abort, a restart that fails is said, and tried again by the next request", () => {
  const dir = mkdtempSync(join(tmpdir(), "heed-restart-"));
  const copy = join(dir, "model.heed");
  try {
    copyFileSync(model, copy);
    inFreshNode(`${withoutSharedMemory}
      const { renameSync } = await import("node:fs");
      const copy = ${JSON.stringify(copy)};
      const t = await restarting({ model: copy });
      renameSync(copy, copy + ".away");  // the restarted worker will not find it
      const controller = new AbortController();
      await t.translate(paragraph, { to: "de", maxBatch: 1, signal: controller.signal,
                                     onSentence: () => controller.abort() }).catch(() => {});
      await t.translate("A dog.", { to: "de" }).then(() => check(false, "translated without a model"),
        (e) => check(/could not start again/.test(e.message), String(e)));
      renameSync(copy + ".away", copy);
      check((await t.translate("A dog.", { to: "de" })).sentences.length === 1, "no second try");
      t.dispose();`);
  } finally {
    rmSync(dir, { recursive: true });
  }
});

test("a worker that fails or ends by itself rejects its request, and the next request gets a new one", async () => {
  const workerUrl = join(root, "tests/wasm/dying-worker.mjs");
  const t = await createTranslator({ model, worker: true, workerUrl });
  try {
    const want = (await t.translate("A dog.", { to: "de" })).text;
    for (const [text, said] of [["crash", /worker .*dying-worker\.mjs failed: lost/],
                                ["exit", /worker .*dying-worker\.mjs exited \(code 7\)/]]) {
      await assert.rejects(t.translate(text, { to: "de" }), said);
      assert.equal((await t.translate("A dog.", { to: "de" })).text, want);
      assert.equal((await t.split("A dog. A cat.")).filter((s) => s.sentence).length, 2);
    }
  } finally {
    t.dispose();
  }
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
