// The ES module in headless Chromium: the engine in a module Web Worker,
// the model fetched with progress and then served from the Cache API, the
// output equal to the native build's, nothing fetched from elsewhere.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, fork } from "node:child_process";
import { join } from "node:path";
import { chromium } from "playwright-core";
import { heed } from "../native.mjs";

const root = new URL("../../", import.meta.url).pathname;
const model = "tests/fixtures/tiny_prenorm.heed";
const lines = ["A dog runs in the park.", "Two men play football.", "A girl."];

test("the module runs in a worker in Chromium and matches the native build", async () => {
  const server = fork(join(root, "scripts/serve.mjs"), ["--port", "0"], { silent: true });
  const requests = [];
  const address = await new Promise((resolve) => server.on("message", (m) => {
    if (m.address) resolve(m.address);
    if (m.request) requests.push(m.request);
  }));
  const browser = await chromium.launch({
    executablePath: "/usr/bin/chromium", headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
           "--disable-background-networking", "--disable-component-update", "--disable-sync"],
    // launch() starts every run with a fresh, empty profile of its own.
  });
  try {
    const page = await browser.newPage();
    const errors = [], foreign = [];
    page.on("console", (m) => m.type() === "error" && errors.push(m.text()));
    page.on("pageerror", (e) => errors.push(String(e)));
    page.on("request", (r) => { if (!r.url().startsWith(address)) foreign.push(r.url()); });
    const url = `${address}tests/wasm/worker.html?model=/${model}&to=de&lines=${encodeURIComponent(JSON.stringify(lines))}`;
    const want = execFileSync(heed,
      ["translate", "--model", join(root, model), "--to", "de", "--beam", "4"],
      { input: lines.join("\n") + "\n", stdio: ["pipe", "pipe", "ignore"] }).toString().split("\n").slice(0, 3);

    for (const visit of [1, 2]) {
      await page.goto(url);
      await page.waitForFunction(() => window.result !== undefined, null, { timeout: 60000 });
      const r = await page.evaluate(() => window.result);
      assert.equal(r.error, undefined, r.error);
      assert.deepEqual(r.out, want, `visit ${visit}`);
      assert.deepEqual(r.info.languages, ["de", "en"]);
      assert.equal(r.crossShape.length, 4);
      if (visit === 1) assert.ok(r.progress > 0, "progress was reported");
    }
    const modelFetches = requests.filter((u) => u.split("?")[0].endsWith(".heed")).length;
    assert.equal(modelFetches, 1, "the second visit reads the model from the Cache API");
    assert.ok(requests.some((u) => u.includes("worker.js")), "the engine ran in a worker");
    assert.deepEqual(foreign, []);
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
    server.kill();
  }
});
