// heed as an npm package in the three common bundlers, each with its
// default configuration: the package (npm pack of build/wasm/dist) is
// installed into a fresh project holding app.js, built by Vite, webpack 5
// and esbuild, served, and run in headless Chromium, where it must
// translate as the native build does, in a Web Worker, with attention.
//   node --test tests/consumers/bundlers/   (after scripts/build_wasm.sh)
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, fork } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium } from "playwright-core";
import { wasmArithmetic } from "../../native.mjs";

const root = new URL("../../../", import.meta.url).pathname;
const bin = (name) => join(root, "node_modules/.bin", name);
const model = join(root, "models/heed-en-de-int8.heed");
const sentence = "A dog runs in the park.";
let work, tarball, browser;

// Each bundler: the page that loads the app, and how to build it into dist/.
const bundlers = {
  vite: {
    html: '<script type="module" src="/src/index.js"></script>',
    build: (dir) => execFileSync(bin("vite"), ["build"], { cwd: dir, stdio: "pipe" }),
  },
  webpack: {
    html: '<script src="main.js"></script>',
    build: (dir) => execFileSync(bin("webpack"), ["--mode", "production"], { cwd: dir, stdio: "pipe" }),
  },
  esbuild: {
    // esbuild does not follow `new Worker(new URL(...))`: the worker is a
    // second entry point and the engine is copied beside the bundle.
    html: '<script type="module" src="index.js"></script>',
    build: (dir) => {
      execFileSync(bin("esbuild"), ["src/index.js", "node_modules/heed/worker.js", "--bundle",
        "--format=esm", "--outdir=dist", "--entry-names=[name]"], { cwd: dir, stdio: "pipe" });
      copyFileSync(join(dir, "node_modules/heed/heed_engine.wasm"), join(dir, "dist/heed_engine.wasm"));
    },
  },
};

before(async () => {
  work = mkdtempSync(join(tmpdir(), "heed-bundlers-"));
  const name = execFileSync("npm", ["pack", join(root, "build/wasm/dist"), "--pack-destination", work],
    { stdio: ["ignore", "pipe", "ignore"] }).toString().trim().split("\n").at(-1);
  tarball = join(work, name);
  browser = await chromium.launch({
    executablePath: "/usr/bin/chromium", headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"],
  });
});

after(async () => {
  await browser?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

function project(name) {
  const dir = join(work, name);
  mkdirSync(join(dir, "src"), { recursive: true });
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: `heed-in-${name}`, private: true, type: "module" }));
  execFileSync("npm", ["install", "--offline", "--no-audit", "--no-fund", tarball], { cwd: dir, stdio: "pipe" });
  copyFileSync(new URL("app.js", import.meta.url), join(dir, "src/index.js"));
  return dir;
}

async function serve(dir) {
  const server = fork(join(root, "scripts/serve.mjs"), ["--port", "0", "--root", dir], { silent: true });
  const address = await new Promise((resolve) => server.on("message", (m) => m.address && resolve(m.address)));
  return { server, address };
}

// With the module's int8 arithmetic.
const simd = wasmArithmetic(model);
const native = execFileSync(join(root, "build/release/heed"),
  ["translate", "--model", model, "--to", "de", "--beam", "4", ...simd],
  { input: `${sentence}\n`, stdio: ["pipe", "pipe", "ignore"] }).toString().trim();

for (const [name, bundler] of Object.entries(bundlers)) {
  test(`${name}, default configuration: builds, and translates in a worker in Chromium`, async () => {
    const dir = project(name);
    writeFileSync(join(dir, "index.html"), `<!doctype html>\n<title>heed in ${name}</title>\n<link rel="icon" href="data:,">\n${bundler.html}\n`);
    bundler.build(dir);
    for (const file of ["index.html", "heed-en-de-int8.heed"]) {
      const from = file === "index.html" ? join(dir, file) : model;
      if (name !== "vite" || file !== "index.html") copyFileSync(from, join(dir, "dist", file));
    }
    const { server, address } = await serve(join(dir, "dist"));
    const page = await browser.newPage();
    const errors = [], workers = [];
    page.on("console", (m) => m.type() === "error" && errors.push(m.text()));
    page.on("pageerror", (e) => errors.push(String(e)));
    page.on("worker", (w) => workers.push(w.url()));
    try {
      await page.goto(address);
      await page.waitForFunction(() => document.body.dataset.result || document.body.dataset.error,
        null, { timeout: 60000 });
      const error = await page.evaluate(() => document.body.dataset.error);
      assert.equal(error, undefined, `the app failed: ${error}`);
      const result = JSON.parse(await page.evaluate(() => document.body.dataset.result));
      assert.equal(result.text, native);
      assert.equal(result.crossLayers, 3);
      assert.equal(workers.length, 1, "the engine ran in a Web Worker");
      assert.deepEqual(errors, []);
    } finally {
      await page.close();
      server.kill();
    }
  });
}
