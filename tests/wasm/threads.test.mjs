// The threaded engine (heed_engine_threads, pthreads on SharedArrayBuffer)
// against the single-threaded one. Run by the README's test command.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { copyFileSync, existsSync, mkdtempSync, readFileSync } from "node:fs";
import { gunzipSync } from "node:zlib";
import { tmpdir } from "node:os";
import { join } from "node:path";

const root = new URL("../../", import.meta.url).pathname;
const dist = join(root, "build/wasm/dist");
const { createTranslator } = await import(join(dist, "heed.js"));
const tiny = join(root, "tests/fixtures/tiny_prenorm.heed");
const shippedInt8 = join(root, "models/heed-en-de-int8.heed");

// A paragraph of held-out sentences (Multi30k validation), or of word-list
// sentences where ../shared/data is absent.
function paragraph(n) {
  const heldOut = join(root, "../shared/data/multi30k/val.en.gz");
  const lines = existsSync(heldOut)
    ? gunzipSync(readFileSync(heldOut)).toString("utf8").split("\n").filter(Boolean)
    : ["A dog runs in the park.", "Two men play football.", "A girl sits under a tree."];
  return Array.from({ length: n }, (_, i) => lines[i % lines.length]).join(" ");
}

const one = await createTranslator({ model: shippedInt8, threads: 1 });
const two = await createTranslator({ model: shippedInt8, threads: 2 });

test("threads: 2 finds the threaded engine served; bad counts are refused", async () => {
  assert.equal(one.info().threads, 1);
  assert.equal(two.info().threads, 2);
  for (const threads of [0, 1.5, 65, "2"]) {
    await assert.rejects(createTranslator({ model: tiny, threads }), RangeError, String(threads));
  }
});

test("two threads give the one-thread translation, sentence for sentence", async (t) => {
  const text = paragraph(40);
  for (const maxBatch of [32, 8, 3]) {
    for (const beam of [1, 4]) {
      const a = await one.translate(text, { to: "de", beam, maxBatch });
      const b = await two.translate(text, { to: "de", beam, maxBatch });
      assert.ok(a.sentences.length >= 30);
      assert.deepEqual(b.sentences.map((s) => s.text), a.sentences.map((s) => s.text));
      assert.deepEqual(b.sentences.map((s) => s.score), a.sentences.map((s) => s.score));
    }
  }
  t.diagnostic("40 lines as one paragraph, beam 1 and 4, batches of 32, 8 and 3");
});

test("one sentence runs on the single-threaded engine, a paragraph on the threaded one", async () => {
  const fresh = await createTranslator({ model: shippedInt8, threads: 2 });
  const heap = fresh.info().heapBytes;
  const alone = await fresh.translate("A dog runs in the park.", { to: "de", beam: 4 });
  assert.equal(alone.threads, 1);
  // A second copy of the model would add its 8.5 MB.
  assert.ok(fresh.info().heapBytes - heap < 4e6, "the threaded engine took the model for one sentence");
  const paragraphResult = await fresh.translate(paragraph(6), { to: "de" });
  assert.equal(paragraphResult.threads, 2);
  assert.ok(fresh.info().heapBytes > heap, "the threaded engine holds its own copy of the model");
  // Either engine, the same translation.
  assert.equal(alone.text, (await one.translate("A dog runs in the park.", { to: "de", beam: 4 })).text);
  assert.equal((await fresh.translate("A dog runs in the park.", { to: "de", html: true })).threads, 2);
  assert.equal((await one.translate(paragraph(6), { to: "de" })).threads, 1);
  fresh.dispose();
  await assert.rejects(fresh.translate("A dog.", { to: "de" }), /disposed/);
});

test("with two threads, attention and contributions equal one thread's", async () => {
  const [a, b] = await Promise.all([createTranslator({ model: tiny, threads: 1 }),
                                    createTranslator({ model: tiny, threads: 2 })]);
  const text = "A dog runs. Two men play. A girl sits. Ein Hund.";
  const options = { to: "de", attention: true, contributions: true, maxBatch: 2 };
  const [x, y] = [await a.translate(text, options), await b.translate(text, options)];
  for (let s = 0; s < x.sentences.length; ++s) {
    const [p, q] = [x.sentences[s].attention, y.sentences[s].attention];
    assert.deepEqual(q.cross, p.cross);
    assert.deepEqual(q.encoder, p.encoder);
    assert.deepEqual(q.contributions.layer, p.contributions.layer);
  }
  a.dispose();
  b.dispose();
});

test("on a worker with two threads, sentences stream and an abort stops the request", async (t) => {
  const w = await createTranslator({ model: tiny, worker: true, threads: 2 });
  assert.equal(w.info().threads, 2);
  const text = "A dog runs in the park. Two men play football. ".repeat(150);
  const controller = new AbortController();
  let arrived = 0;
  const request = w.translate(text, {
    to: "de", maxBatch: 1, signal: controller.signal,
    onSentence: () => {
      if (++arrived === 1) setTimeout(() => controller.abort(), 20);
    },
  });
  await assert.rejects(request, { name: "AbortError" });
  t.diagnostic(`stopped after ${arrived} of 300 sentences`);
  assert.ok(arrived < 300);
  const local = await createTranslator({ model: tiny, threads: 1 });
  assert.equal((await w.translate("A dog runs. Two men.", { to: "de" })).text,
               (await local.translate("A dog runs. Two men.", { to: "de" })).text);
  // Streamed or not, the result says how many threads ran.
  const streamed = await w.translate("A dog runs. Two men.", { to: "de", onSentence: () => {} });
  assert.equal(streamed.threads, 2);
  assert.equal((await w.translate("A dog runs.", { to: "de", onSentence: () => {} })).threads, 1);
  w.dispose();
  local.dispose();
});

test("Node exits with the pool idle or disposed", () => {
  for (const end of ["", "t.dispose();"]) {
    const script = `
      const { createTranslator } = await import(${JSON.stringify(join(dist, "heed.js"))});
      const t = await createTranslator({ model: ${JSON.stringify(tiny)}, threads: 3 });
      console.log((await t.translate("A dog. Two men. A girl.", { to: "de" })).text);
      ${end}`;
    const out = execFileSync(process.execPath, ["--input-type=module", "-e", script],
                             { encoding: "utf8", timeout: 60000 });
    assert.ok(out.trim().length > 0, end || "idle pool");
  }
});

test("where the threaded engine is not served, one thread runs", async () => {
  const dir = mkdtempSync(join(tmpdir(), "heed-single-"));
  copyFileSync(join(dist, "heed_engine.wasm"), join(dir, "heed_engine.wasm"));
  const t = await createTranslator({ model: shippedInt8, threads: 2, wasmUrl: join(dir, "heed_engine.wasm") });
  assert.equal(t.info().threads, 1);
  const text = "A dog runs. Two men play.";
  assert.equal((await t.translate(text, { to: "de" })).text, (await one.translate(text, { to: "de" })).text);
  t.dispose();
});

test("where the threaded engine's WebAssembly is missing, a paragraph runs on one thread, and says so", async () => {
  const dir = mkdtempSync(join(tmpdir(), "heed-glue-"));
  for (const f of ["heed_engine.wasm", "heed_engine_threads.js", "heed_engine_threads.worker.cjs"]) {
    copyFileSync(join(dist, f), join(dir, f));
  }
  const t = await createTranslator({ model: shippedInt8, threads: 2, wasmUrl: join(dir, "heed_engine.wasm") });
  assert.equal(t.info().threads, 2, "its glue is served");
  const text = paragraph(6);
  const r = await t.translate(text, { to: "de" });
  assert.equal(r.threads, 1);
  assert.equal(t.info().threads, 1);
  assert.equal(r.text, (await one.translate(text, { to: "de" })).text);
  t.dispose();
});

test("disposed while the threaded engine starts: the call is refused", async () => {
  const t = await createTranslator({ model: shippedInt8, threads: 2 });
  const pending = t.translate(paragraph(6), { to: "de" });
  await new Promise((resolve) => setImmediate(resolve));  // the call has begun
  t.dispose();
  await assert.rejects(pending, /disposed/);
});

test.after(() => {
  one.dispose();
  two.dispose();
});
