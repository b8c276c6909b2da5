// The translate-in-place demo (build/site/article.html) in headless
// Chromium: translateElement on heed's Translator API translates each block
// of the article as the native build's HTML mode does, keeps links and
// emphasis, leaves translate="no" alone, shows the original and the
// translation in turn, translates a paragraph added later, and of a block
// the page edits after its translation, only the page's new words.
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

// translateElement on a block of the test's own, with the page's
// Translator API (the shipped model) or a wrapper around it.
const inPage = async (body, arg) => {
  if (!page.url().startsWith(`${address}article.html`)) await page.goto(`${address}article.html`);
  return page.evaluate(async ({ body, arg }) => {
    const { createTranslatorAPI } = await import("./lib/translator-api.js");
    const { translateElement } = await import("./lib/translate-element.js");
    const { Translator } = createTranslatorAPI({ model: "models/heed-en-de-int8.heed" });
    const translator = await Translator.create({ sourceLanguage: "en", targetLanguage: "de" });
    const box = document.createElement("div");
    document.body.append(box);
    try {
      return await new Function("translateElement", "translator", "box", "arg", `return (async () => { ${body} })();`)(
        translateElement, translator, box, arg);
    } finally {
      box.remove();
      translator.destroy();
    }
  }, { body, arg });
};

test("inside a block, pre, contenteditable and translate=\"NO\" stay as they are, and nothing of heed's is left", async () => {
  const html = 'The dog is black. <pre class="x">make install</pre> <span contenteditable="true">the cat</span> ' +
    '<b translate="NO">the park</b> <code translate="yes">ls</code> The cat is sleeping.';
  const out = await inPage(`
    box.innerHTML = arg;
    const errors = [];
    await translateElement(box, translator, { onError: (e) => errors.push(String(e)) }).done;
    return { html: box.innerHTML, errors };`, html);
  assert.deepEqual(out.errors, []);
  assert.match(out.html, /<pre class="x">make install<\/pre>/);
  assert.match(out.html, /<span contenteditable="true">the cat<\/span>/);
  assert.match(out.html, /<b translate="NO">the park<\/b>/);
  assert.doesNotMatch(out.html, /data-heed|translate="no"/);
  assert.match(out.html, /Hund/);
  assert.doesNotMatch(out.html, /The dog is black/);
});

test("a block's form fields keep what the user entered through translation and back", async () => {
  const out = await inPage(`
    box.innerHTML = '<p><label><input type="checkbox" name="c"> The dog is black.</label> ' +
      '<input type="text" name="t" value="default"> The cat is sleeping.</p>';
    box.querySelector("[name=c]").checked = true;
    box.querySelector("[name=t]").value = "typed by the user";
    const page = translateElement(box, translator);
    await page.done;
    const after = [box.querySelector("[name=c]").checked, box.querySelector("[name=t]").value, box.textContent];
    page.showOriginal();
    const back = [box.querySelector("[name=c]").checked, box.querySelector("[name=t]").value, box.textContent];
    return { after, back };`);
  assert.deepEqual(out.after.slice(0, 2), [true, "typed by the user"]);
  assert.match(out.after[2], /Hund/);
  assert.deepEqual(out.back.slice(0, 2), [true, "typed by the user"]);
  assert.match(out.back[2], /The dog is black/);
});

test("an already aborted signal translates nothing and reports nothing; stop() ends the translations under way", async () => {
  const out = await inPage(`
    box.innerHTML = "<p>The dog is black.</p><p>The cat is sleeping.</p>";
    const errors = [];
    const onError = (e) => errors.push(String(e));
    let calls = 0;
    const counting = { translate: (h, o) => { ++calls; return translator.translate(h, o); } };
    await translateElement(box, counting, { signal: AbortSignal.abort(), onError }).done;
    const untouched = box.textContent;
    let seen = null, page = null;
    const stopping = { translate: (h, o) => {  // stop() while the first block is being translated
      seen = o.signal;
      page.stop();
      ++calls;
      return translator.translate(h, o);
    } };
    page = translateElement(box, stopping, { onError });
    await page.done;
    return { calls, untouched, aborted: seen?.aborted ?? "not called", text: box.textContent, errors };`);
  assert.equal(out.calls, 1, "the block under way when it stopped, and no other");
  assert.equal(out.untouched, "The dog is black.The cat is sleeping.");
  assert.equal(out.aborted, true);
  assert.equal(out.text, "The dog is black.The cat is sleeping.");
  assert.deepEqual(out.errors, []);
});

test("a block that changes while it is translated (an attribute, unobserved) is translated again, not dropped", async () => {
  const out = await inPage(`
    box.innerHTML = '<p>The dog is <a href="#x">black</a>.</p>';
    let first = true;
    const changing = { translate: (h, o) => {
      if (first) box.querySelector("a").classList.add("active");  // the page changes it meanwhile
      first = false;
      return translator.translate(h, o);
    } };
    const errors = [];
    const first_ = translateElement(box, changing, { onError: (e) => errors.push(String(e)) });
    await first_.done;
    const again = box.innerHTML;
    first_.showOriginal();
    const original = box.innerHTML;
    const restless = { translate: (h, o) => {
      box.querySelector("a").dataset.n = String(Number(box.querySelector("a").dataset.n ?? 0) + 1);
      return translator.translate(h, o);
    } };
    box.innerHTML = '<p>The dog is <a href="#x">black</a>.</p>';
    await translateElement(box, restless, { onError: (e) => errors.push(String(e)) }).done;
    return { again, original, errors, tries: box.querySelector("a").dataset.n, text: box.textContent };`);
  assert.match(out.again, /class="active"/);
  assert.equal(out.original, '<p>The dog is <a href="#x" class="active">black</a>.</p>', "the page's change is kept");
  assert.match(out.again, /Hund/);
  assert.equal(out.errors.length, 1);
  assert.match(out.errors[0], /kept changing/);
  assert.equal(out.tries, "3");
  assert.equal(out.text, "The dog is black.");
});

test("text the page writes into a translated block is translated, and the block's translated words are not sent again", async () => {
  const out = await inPage(`
    box.innerHTML = '<p>Today you have <span id="n">three new messages</span> from your friends.' +
      '<svg><title>Close</title></svg><style>b > i { color: red }</style></p>';
    const sent = [];
    const recording = { translate: (h, o) => {
      sent.push(h);
      return translator.translate(h, o);
    } };
    const errors = [];
    const page = translateElement(box, recording, { observe: true, onError: (e) => errors.push(String(e)) });
    await page.done;
    const first = box.innerHTML;
    const settle = async () => {
      await new Promise((resolve) => setTimeout(resolve, 0));  // the observer's records
      await page.done;
    };
    box.querySelector("#n").textContent = "four new messages";  // new nodes
    await settle();
    const replaced = box.innerHTML;
    box.querySelector("#n").firstChild.data = "five old letters";  // a node's text
    await settle();
    const last = box.innerHTML;
    const p = box.querySelector("p");
    p.append(p.firstChild);  // translated text moved: nothing new to send
    await settle();
    const moved = box.innerHTML;
    page.stop();
    const outside = (html) => html.replace(/<span id="n">.*<\\/span>/, "");
    return { sent, first, replaced, last, moved, errors, outside: [first, replaced, last].map(outside),
             span: box.querySelector("#n").textContent };`);
  assert.deepEqual(out.errors, []);
  assert.equal(out.sent.length, 3, "the move sent nothing");
  assert.match(out.sent[0], /^Today you have <span id="n">three new messages<\/span> from your friends\./);
  for (const [i, words] of [[1, "four new messages"], [2, "five old letters"]]) {
    const own = out.sent[i].replace(/<span data-heed-kept="\+" translate="no">[^<]*<\/span>/g, "")
      .replace(/<svg.*<\/style>/, "");
    assert.equal(own, `<span id="n">${words}</span>`, `only the page's text goes to the model: ${out.sent[i]}`);
  }
  assert.match(out.first, /Freunde/);
  for (const html of [out.replaced, out.last, out.moved]) {
    assert.doesNotMatch(html, /data-heed-kept|translate=/);
    assert.match(html, /<svg><title>Close<\/title><\/svg><style>b > i \{ color: red \}<\/style>/, "kept as it was");
  }
  assert.equal(out.outside[1], out.outside[0], "the translated words stay as they were");
  assert.equal(out.outside[2], out.outside[0]);
  assert.doesNotMatch(out.replaced, /four new messages/);
  assert.doesNotMatch(out.span, /five old letters/);
  assert.notEqual(out.moved, out.last);
});
