// How a translator holds its engine (wasm/hold.js), with a stand-in engine
// and module that record what is done to them: the engine is freed only
// once no call on it is running, nested calls included.
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";

const root = new URL("../../", import.meta.url).pathname;
const { holdEngine } = await import(join(root, "build/wasm/dist/hold.js"));

function standIns() {
  const log = [];
  let sp = 100;
  const module = {
    stackSave: () => sp,
    stackRestore: (to) => { sp = to; },
    heapBytes: () => 65536,
    heedWorkers: () => [{ terminate: () => log.push("workers ended") }],
    leakStack: () => { sp -= 16; },
  };
  const engine = { delete: () => log.push("deleted") };
  return { module, engine, log, stack: () => sp };
}

test("dispose() inside a nested call frees the engine only when the outer call returns", () => {
  const { module, engine, log } = standIns();
  const held = holdEngine(module, engine);
  held.use(() => {
    held.use(() => log.push("inner call"));  // onSentence calling info()
    held.dispose();
    assert.equal(held.stopping(), true);
    log.push("outer call goes on");
  });
  assert.deepEqual(log, ["inner call", "outer call goes on", "deleted", "workers ended"]);
  assert.throws(() => held.use(() => {}), /disposed/);
  assert.doesNotThrow(() => held.dispose());
  assert.equal(log.filter((e) => e === "deleted").length, 1);
});

test("dispose() outside any call frees at once; a throwing call restores the wasm stack", () => {
  const { module, engine, log, stack } = standIns();
  const held = holdEngine(module, engine);
  assert.throws(() => held.use(() => { module.leakStack(); throw new TypeError("not convertible"); }), TypeError);
  assert.equal(stack(), 100);
  assert.equal(held.stopping(), false);
  held.dispose();
  assert.deepEqual(log, ["deleted", "workers ended"]);
  assert.throws(() => held.live(), /disposed/);
});
