// The translate-in-place demo (build/site/article.html) in headless
// Chromium: translateElement on heed's Translator API translates each block
// of the article as the native build's HTML mode does, keeps links and
// emphasis, leaves translate="no" alone, shows the original and the
// translation in turn, and translates a paragraph added later.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, fork } from "node:child_process";
import { join } from "node:path";
import { chromium } from "playwright-core";
import { heed, wasmArithmetic } from "../native.mjs";

const root = new URL("../../", import.meta.url).pathname;
const model = join(root, "models/heed-en-de-int8.heed");
const simd = wasmArithmetic(model);
let server, browser, page, address;
const errors = [], foreign = [];

function native(lines) {
  return execFileSync(heed, ["translate", "--model", model, "--to", "de", "--html", "1", ...simd],
    { input: lines.join("\n") + "\n", stdio: ["pipe", "pipe", "ignore"] }).toString().split("\n").slice(0, lines.length);
}

// HTML as the browser serialises it once parsed.
const serialised = (html) => page.evaluate((h) => {
  const d = document.createElement("div");
  d.innerHTML = h;
  return d.innerHTML;
}, html);

const blocks = () => page.$$eval("#article h2, #article p, #article li", (es) => es.map((e) => e.innerHTML));
const done = (n) => page.waitForFunction((k) => Number(document.getElementById("article").dataset.done ?? 0) >= k, n,
  { timeout: 120000 });

before(async () => {
  server = fork(join(root, "scripts/serve.mjs"), ["--port", "0", "--root", join(root, "build/site")], { silent: true });
  address = await new Promise((resolve) => server.on("message", (m) => m.address && resolve(m.address)));
  browser = await chromium.launch({
    executablePath: "/usr/bin/chromium", headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
      "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
  page = await browser.newPage();
  page.on("console", (m) => m.type() === "error" && errors.push(m.text()));
  page.on("pageerror", (e) => errors.push(String(e)));
  page.on("request", (r) => { if (!r.url().startsWith(address) && !r.url().startsWith("data:")) foreign.push(r.url()); });
});

after(async () => {
  await browser?.close();
  server?.kill();
});

test("the article is translated in place as the native HTML mode does, and back", async () => {
  await page.goto(`${address}article.html`);
  await page.waitForFunction(() => !document.getElementById("translate").disabled, null, { timeout: 60000 });
  const original = await blocks();
  const originalArticle = await page.$eval("#article", (a) => a.innerHTML);
  await page.click("#translate");
  await done(1);
  const got = await blocks();
  const keep = await page.$$eval("#article h2, #article p, #article li", (es) => es.map((e) => e.getAttribute("translate") === "no"));
  const want = native(original);
  for (let i = 0; i < original.length; ++i) {
    if (keep[i]) {
      assert.equal(got[i], original[i], "translate=\"no\" is left alone");
    } else {
      assert.equal(got[i], await serialised(want[i]), original[i]);
      assert.notEqual(got[i], original[i], original[i]);
    }
  }
  // Links and emphasis kept, hrefs untouched.
  assert.deepEqual(await page.$$eval("#article a", (as) => as.map((a) => a.getAttribute("href"))), ["#children", "#museum"]);
  assert.equal(await page.$$eval("#article em, #article b, #article i, #article strong", (es) => es.length), 6);
  assert.match(await page.$eval("#article", (a) => a.textContent), /Hund/);

  await page.click("#original");
  assert.equal(await page.$eval("#article", (a) => a.innerHTML), originalArticle);
  assert.equal(await page.textContent("#original"), "Show translation");
  await page.click("#original");
  assert.deepEqual(await blocks(), got);
});

test("a paragraph added later is translated as it comes", async () => {
  await page.click("#add");
  await done(2);
  const last = await page.$eval("#article > p:last-of-type", (p) => p.innerHTML);
  assert.equal(last, await serialised(native(["The <b>cat</b> is sleeping on the sofa."])[0]));
  assert.match(last, /<b>[^<]+<\/b>/);
  assert.deepEqual(errors, []);
  assert.deepEqual(foreign, []);
});

test("what the page adds while the original is shown is translated when the translation comes back", async () => {
  await page.click("#original");  // the original
  assert.equal(await page.textContent("#original"), "Show translation");
  await page.$eval("#article", (a) => {
    const p = document.createElement("p");
    p.id = "late";
    p.innerHTML = "The <b>dog</b> is black.";
    a.append(p);
  });
  await page.click("#original");  // the translation again, and the new paragraph's
  await page.waitForFunction(() => document.getElementById("late").textContent !== "The dog is black.", null,
    { timeout: 60000 });
  assert.equal(await page.$eval("#late", (p) => p.innerHTML), await serialised(native(["The <b>dog</b> is black."])[0]));
  assert.match(await page.$eval("#article h2", (h) => h.textContent), /Park/);
  assert.deepEqual(errors, []);
});
