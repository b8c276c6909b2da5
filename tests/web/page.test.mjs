// heed's page (build/site, from scripts/build_site.sh) in headless Chromium:
// it loads, translates as the native build does, draws every view, reacts
// to its controls, and never lets user text become HTML or a request leave
// the origin. Screenshots of the main views go to build/screenshots/.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, fork } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium } from "playwright-core";
import { heed, nativeModelInfo, wasmArithmetic } from "../native.mjs";

const root = new URL("../../", import.meta.url).pathname;
const shots = join(root, "build/screenshots");
const model = join(root, "models/heed-en-de-int8.heed");  // what the page loads

let server, browser, page, address;
const requests = [], foreign = [], errors = [], dialogs = [];

// The native build with the module's int8 arithmetic.
const simd = wasmArithmetic(model);

// What the native build says of the shipped model: its size, parameters
// and config (layers and heads), which the page's views should match.
const modelInfo = nativeModelInfo(model);

// As the page should say it: "9.9 M parameters, 10.9 MB".
function modelSummary() {
  const { parameters, bytes } = modelInfo;
  return `${(parameters / 1e6).toFixed(1)} M parameters, ${(bytes / 1e6).toFixed(1)} MB`;
}

function assertModelInfo(text) {
  const want = modelSummary();
  assert.ok(text.includes(want), `"${text}" does not say "${want}"`);
}

function native(line, to, beam, extra = []) {
  return execFileSync(heed,
    ["translate", "--model", model, "--to", to, "--beam", String(beam), ...simd, ...extra],
    { input: `${line}\n`, stdio: ["pipe", "pipe", "ignore"] }).toString().split("\n")[0];
}

// Waits for the translation started by `action` to finish; returns its text.
async function translated(action) {
  const before = await page.getAttribute("#target", "data-done");
  await action();
  await page.waitForFunction((b) => {
    const d = document.getElementById("target").dataset.done;
    return d !== undefined && d !== b;
  }, before, { timeout: 60000 });
  return page.textContent("#target");
}

// Sets a menu; a changed menu translates again, which is waited for so
// that the next translated() waits for its own translation.
async function choose(id, value) {
  if (await page.$eval(id, (s) => s.value) !== value) await translated(() => page.selectOption(id, value));
}

// Counts a canvas's pixels that are neither transparent nor white, and
// returns a hash of its pixels to tell drawings apart.
function pixels(selector) {
  return page.$eval(selector, (c) => {
    if (!c.width || !c.height) return { painted: 0, hash: 0 };
    const d = c.getContext("2d").getImageData(0, 0, c.width, c.height).data;
    let painted = 0, hash = 0;
    for (let i = 0; i < d.length; i += 4) {
      if (d[i + 3] > 0 && !(d[i] > 250 && d[i + 1] > 250 && d[i + 2] > 250)) ++painted;
      hash = (hash * 31 + d[i] + 7 * d[i + 1] + 13 * d[i + 2] + 17 * d[i + 3]) | 0;
    }
    return { painted, hash };
  });
}

async function openView(name) {
  await page.click(`[data-view="${name}"]`);
  await page.waitForSelector(`#view-${name}:not([hidden])`);
}

before(async () => {
  mkdirSync(shots, { recursive: true });
  server = fork(join(root, "scripts/serve.mjs"), ["--port", "0", "--root", join(root, "build/site")], { silent: true });
  address = await new Promise((resolve) => server.on("message", (m) => {
    if (m.address) resolve(m.address);
    if (m.request) requests.push(m.request);
  }));
  browser = await chromium.launch({
    executablePath: "/usr/bin/chromium", headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
      "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
  page = await browser.newPage({ viewport: { width: 1280, height: 800 }, acceptDownloads: true });
  // Counts the requests the page sends its engine worker.
  await page.addInitScript(() => {
    window.heedWorkerRequests = [];
    const post = Worker.prototype.postMessage;
    Worker.prototype.postMessage = function (message, ...rest) {
      if (message?.op) window.heedWorkerRequests.push(message.op);
      return post.call(this, message, ...rest);
    };
  });
  page.on("console", (m) => m.type() === "error" && errors.push(m.text()));
  page.on("pageerror", (e) => errors.push(String(e)));
  page.on("request", (r) => { if (!r.url().startsWith(address) && !r.url().startsWith("blob:")) foreign.push(r.url()); });
  page.on("dialog", (d) => { dialogs.push(d.message()); d.dismiss(); });
});

after(async () => {
  await browser?.close();
  server?.kill();
});

test("the page loads with a completed progress bar and translates both directions like the native build", async () => {
  const start = Date.now();
  await page.goto(address);
  await page.waitForSelector("body[data-ready]", { timeout: 60000 });
  await page.waitForFunction(() => document.getElementById("target").dataset.done, null, { timeout: 60000 });
  const firstMs = Date.now() - start;
  assert.equal(await page.$eval("#load-progress", (p) => p.value), 1);
  assert.match(await page.textContent("#load-status"), /Loading the model: ([\d.]+ MB) of \1$/);
  assert.ok(await page.$eval("#loading", (e) => getComputedStyle(e).display === "none"));
  assertModelInfo(await page.textContent("#model-info"));
  console.log(`# cold load to first translation: ${firstMs} ms`);
  assert.ok(requests.some((u) => u.endsWith("worker.js")), "the engine runs in a Web Worker");

  const en = await page.$$eval("#examples button", (b) => b.map((x) => x.textContent));
  const got = await translated(() => page.click("#examples button:nth-child(2)"));
  assert.equal(got, native(en[1], "de", 4));

  await translated(() => page.selectOption("#direction", "de-en"));
  const de = await page.$$eval("#examples button", (b) => b.map((x) => x.textContent));
  assert.match(de[0], /Hund/);
  for (const beam of ["1", "4"]) {
    await translated(() => page.selectOption("#beam", beam));
    const text = await translated(() => page.click("#examples button:nth-child(1)"));
    assert.equal(text, native(de[0], "en", Number(beam)), `beam ${beam}`);
  }
  assert.match(await page.textContent("#timing"), /\d+ ms · \d+ tokens\/s/);
  await page.screenshot({ path: join(shots, "translate-1280.png") });
});

test("the cross-origin isolated page decodes a paragraph on several threads, as the native build does", async () => {
  const p = await browser.newPage();
  try {
    await p.goto(address);
    await p.waitForSelector("#target[data-done]", { timeout: 60000 });
    const { isolated, cores } = await p.evaluate(() => ({ isolated: crossOriginIsolated, cores: navigator.hardwareConcurrency }));
    assert.equal(isolated, true);
    const threads = Math.min(4, cores);
    assert.match(await p.textContent("#model-info"), new RegExp(`decoding on ${threads} threads?\\.`));
    const text = "A man rides a bike. Two dogs play in the snow. A woman reads a book in the park. " +
      "Children are swimming in a lake. An old man sits on a bench. A girl in a red dress is dancing.";
    const before = await p.getAttribute("#target", "data-done");
    const engines = [];
    p.on("response", (r) => { if (r.url().endsWith(".wasm")) engines.push(r.url().split("/").pop()); });
    await p.fill("#source", text);
    await p.click("#translate");
    await p.waitForFunction((b) => document.getElementById("target").dataset.done !== b, before, { timeout: 60000 });
    assert.equal(await p.textContent("#target"), native(text, "de", 4));
    assert.deepEqual(engines, ["heed_engine_threads.wasm"], "six sentences: the threaded engine");
  } finally {
    await p.close();
  }
});

test("the swap button swaps the direction and the texts", async () => {
  const before = await page.textContent("#target");
  await translated(() => page.click("#swap"));
  assert.equal(await page.inputValue("#direction"), "en-de");
  assert.equal(await page.inputValue("#source"), before);
});

test("Detect language translates German into English and English into German, saying what it found", async () => {
  const german = "Ich habe heute leider keine Zeit.", english = "The weather is nice today.";
  await page.fill("#source", german);
  const toEnglish = await translated(() => page.selectOption("#direction", "auto"));
  assert.equal(toEnglish, native(german, "en", 4));
  assert.match(await page.textContent("#detected"), /^Detected: German \(\d+%\)$/);
  await page.fill("#source", english);
  const toGerman = await translated(() => page.click("#translate"));
  assert.equal(toGerman, native(english, "de", 4));
  assert.match(await page.textContent("#detected"), /^Detected: English/);
  await translated(() => page.selectOption("#direction", "en-de"));
  assert.equal(await page.isHidden("#detected"), true);
});

test("the alignment view draws, follows layer and head, and highlights on hover", async () => {
  await translated(async () => {
    await page.fill("#source", "A dog runs through the park with a ball.");
    await page.keyboard.press("Control+Enter");
  });
  await openView("alignment");
  const first = await pixels("#canvas-alignment");
  assert.ok(first.painted > 5000, `painted ${first.painted}`);
  await page.selectOption("#layer", "0");
  const layer0 = await pixels("#canvas-alignment");
  assert.notEqual(layer0.hash, first.hash, "the layer selector changes the drawing");
  await page.selectOption("#head", "3");
  const head3 = await pixels("#canvas-alignment");
  assert.notEqual(head3.hash, layer0.hash, "the head selector changes the drawing");
  await page.selectOption("#head", "mean");
  await page.selectOption("#layer", "2");

  // Hover the cell of target token 1 and source token 2.
  await page.$eval("#canvas-alignment", (c) => c.scrollIntoView({ block: "center" }));
  const grid = JSON.parse(await page.getAttribute("#canvas-alignment", "data-grid"));
  const box = await page.$eval("#canvas-alignment", (c) => c.getBoundingClientRect().toJSON());
  await page.mouse.move(box.x + grid.x + 2.5 * grid.cell, box.y + grid.y + 1.5 * grid.cell);
  await page.waitForSelector("#align-target span.focus");
  assert.equal(await page.$$eval("#align-target span.focus", (s) => s.map((x) => x.textContent)).then((t) => t.length), 1);
  const colored = await page.$$eval("#align-source span", (s) => s.filter((x) => x.style.background).length);
  const sourceCount = await page.$$eval("#align-source span", (s) => s.length);
  assert.equal(colored, sourceCount, "the hovered target token colours every source token");
  assert.notEqual((await pixels("#canvas-alignment")).hash, first.hash, "the hovered row is outlined");
  // The reverse: hovering a source token colours the target tokens.
  await page.hover("#align-source span:nth-child(3)");
  assert.ok(await page.$$eval("#align-target span", (s) => s.every((x) => x.style.background)));
  await page.screenshot({ path: join(shots, "alignment-1280.png"), fullPage: true });
});

test("encoder and decoder views draw; the decoder's causal mask is visibly hatched", async () => {
  await openView("encoder");
  assert.ok((await pixels("#canvas-encoder")).painted > 5000);
  await openView("decoder");
  assert.ok((await pixels("#canvas-decoder")).painted > 5000);
  const grid = JSON.parse(await page.getAttribute("#canvas-decoder", "data-grid"));
  // The top-right cell is in the future of the first token: grey hatching
  // (r = g = b) rather than a viridis colour (never grey).
  const colors = await page.$eval("#canvas-decoder", (c, g) => {
    const dpr = c.width / parseFloat(c.style.width);
    const at = (i, j) => {
      const out = new Set();
      for (let dy = 1; dy < g.cell - 1; ++dy) {
        for (let dx = 1; dx < g.cell - 1; ++dx) {
          const d = c.getContext("2d").getImageData(Math.round((g.x + j * g.cell + dx) * dpr),
            Math.round((g.y + i * g.cell + dy) * dpr), 1, 1).data;
          out.add(`${d[0]},${d[1]},${d[2]}`);
        }
      }
      return [...out];
    };
    return { masked: at(0, g.cols - 1), seen: at(g.rows - 1, 0) };
  }, grid);
  assert.ok(colors.masked.length >= 2, "the masked cell is hatched (two colours)");
  for (const c of colors.masked) {
    const [r, g, b] = c.split(",").map(Number);
    assert.ok(Math.abs(r - g) < 12 && Math.abs(g - b) < 12, `masked cell colour ${c} is grey`);
  }
  assert.equal(colors.seen.length, 1, "a visible cell is one flat colour");
  await page.screenshot({ path: join(shots, "decoder-1280.png"), fullPage: true });
});

test("the head view draws one colour per head, toggles heads and isolates a hovered token", async () => {
  await openView("heads");
  const all = await pixels("#canvas-heads");
  assert.ok(all.painted > 2000);
  await page.click("#head-toggles button:nth-child(1)");
  assert.equal(await page.getAttribute("#head-toggles button:nth-child(1)", "aria-pressed"), "false");
  const fewer = await pixels("#canvas-heads");
  assert.notEqual(fewer.hash, all.hash);
  await page.click("#head-toggles button:nth-child(1)");
  await page.$eval("#canvas-heads", (c) => c.scrollIntoView({ block: "center" }));
  const box = await page.$eval("#canvas-heads", (c) => c.getBoundingClientRect().toJSON());
  await page.mouse.move(box.x + 20, box.y + 6 + 22 * 1.5);
  const one = await pixels("#canvas-heads");
  assert.ok(one.painted < all.painted, `hovering keeps one token's lines (${one.painted} < ${all.painted})`);
  await page.mouse.move(0, 0);
  await page.selectOption("#heads-kind", "encoder");
  assert.notEqual((await pixels("#canvas-heads")).hash, all.hash);
  await page.screenshot({ path: join(shots, "heads-1280.png"), fullPage: true });
});

test("the model view draws every layer and head and opens one large", async () => {
  await openView("model");
  const n = await page.$$eval("#model-grid canvas", (c) => c.length);
  assert.equal(n, 3 * 8);
  for (let i = 1; i <= n; i += 7) {
    assert.ok((await pixels(`#model-grid canvas.thumb >> nth=${i - 1}`)).painted > 500);
  }
  await page.click("#model-grid canvas.thumb >> nth=5");
  await page.waitForSelector("#zoom[open]");
  assert.match(await page.textContent("#zoom-title"), /cross-attention, layer 1, head 6/);
  assert.ok((await pixels("#canvas-zoom")).painted > 5000);
  await page.screenshot({ path: join(shots, "model-zoom-1280.png") });
  await page.keyboard.press("Escape");
  await page.selectOption("#model-kind", "decoder");
  await page.screenshot({ path: join(shots, "model-1280.png"), fullPage: true });
});

test("step-through shows each step's candidates and source attention", async () => {
  await openView("steps");
  const T = await page.$eval("#step", (s) => Number(s.max) + 1);
  assert.ok(T > 3);
  const hashes = new Set();
  for (const t of [0, Math.floor(T / 2), T - 1]) {
    await page.$eval("#step", (s, v) => {
      s.value = String(v);
      s.dispatchEvent(new Event("input"));
    }, t);
    assert.equal(await page.$$eval("#step-written span", (s) => s.length), t + 1);
    const rows = await page.$$eval("#step-candidates tr", (r) => r.map((x) => x.textContent));
    assert.equal(rows.length, 5);
    const p = await page.$$eval("#step-candidates tr td:last-child", (c) => c.map((x) => parseFloat(x.textContent)));
    assert.ok(p.every((x, i) => i === 0 || x <= p[i - 1]), "candidates are sorted by probability");
    const drawn = await pixels("#canvas-steps");
    assert.ok(drawn.painted > 300);
    hashes.add(drawn.hash);
  }
  assert.equal(hashes.size, 3, "each step draws its own attention");
  // "Why not?" at step 2: contrastive erasure, as computed here from two
  // erasure requests of a translator of the test's own.
  await page.$eval("#step", (s) => {
    s.value = "1";
    s.dispatchEvent(new Event("input"));
  });
  const y = await page.$eval("#step-candidates button.why-not", (b) => b.dataset.piece);
  await page.click("#step-candidates button.why-not");
  await page.waitForSelector("#step-contrast[data-done]", { timeout: 60000 });
  const shown = await page.$$eval("#step-contrast span", (s) => s.map((x) => Number(x.dataset.effect)));
  const source = await page.$eval("#source", (e) => e.value);
  const to = (await page.$eval("#direction", (e) => e.value)).split("-")[1];
  const beam = Number(await page.$eval("#beam", (e) => e.value));
  const want = await page.evaluate(async ({ source, to, beam, y }) => {
    const { createTranslator } = await import("./lib/heed.js");
    const tr = await createTranslator({ model: "models/heed-en-de-int8.heed", worker: false });
    const s = (await tr.translate(source, { to, beam })).sentences[0];
    const effect = async (piece) => (await tr.translate(s.source,
      { to, beam, erasure: "remove", prefixPieces: [...s.targetPieces.slice(0, 1), piece] })).sentences[0].erasure.effect[1];
    const dx = await effect(s.targetPieces[1]), dy = await effect(y);
    tr.dispose();
    return Array.from(dx, (v, j) => v - dy[j]);
  }, { source, to, beam, y });
  assert.equal(shown.length, want.length);
  shown.forEach((v, j) => assert.ok(Math.abs(v - want[j]) < 1e-3, `source piece ${j}: ${v} vs ${want[j]}`));
  assert.match(await page.textContent("#step-contrast p"), /Why ".*" and not ".*"\?/);
  await page.screenshot({ path: join(shots, "steps-1280.png"), fullPage: true });
});

test("the translation's words are tinted by the model's confidence; the toggle clears it", async () => {
  const text = await translated(() => page.fill("#source", "A dog runs through the park with a ball.")
    .then(() => page.click("#translate")));
  const words = await page.$$eval("#target .word", (w) => w.map((x) => ({
    p: Number(x.dataset.p), title: x.title, tint: getComputedStyle(x).backgroundColor })));
  assert.equal(words.length, text.trim().split(/\s+/).length);
  for (const w of words) {
    assert.ok(w.p > 0 && w.p <= 1, `probability ${w.p}`);
    assert.match(w.title, /^p = [\d.]+% · entropy [\d.]+ nats/);
  }
  // Less probable words are tinted more strongly.
  const alpha = (c) => Number((c.match(/rgba\([^)]*,\s*([\d.]+)\)/) ?? [0, 0])[1]);
  const [low, high] = [...words].sort((a, b) => a.p - b.p).filter((w, i, all) => i === 0 || i === all.length - 1);
  assert.ok(alpha(low.tint) >= alpha(high.tint));
  // Clicking a word opens its decoding step.
  const step = Number(await page.getAttribute("#target .word:nth-of-type(2)", "data-step"));
  await page.click("#target .word:nth-of-type(2)");
  await page.waitForSelector("#view-steps:not([hidden])");
  assert.equal(Number(await page.$eval("#step", (s) => s.value)), step);
  assert.equal(await page.$$eval("#step-written span", (s) => s.length), step + 1);
  await page.uncheck("#confidence");
  const plain = await page.$$eval("#target .word", (w) => w.map((x) => getComputedStyle(x).backgroundColor));
  assert.ok(plain.every((c) => c === "rgba(0, 0, 0, 0)"), plain.join(" "));
  await page.check("#confidence");
});

test("layer by layer shows each decoder layer's top piece per step; a cell lists its top pieces", async () => {
  await openView("lens");
  const pieces = await page.$$eval("#lens-grid tr:first-child th", (t) => t.slice(1).map((x) => x.textContent));
  const rows = await page.$$eval("#lens-grid tr", (r) => r.slice(1).map((x) => [...x.querySelectorAll("button")]
    .map((b) => ({ text: b.textContent, formed: b.classList.contains("formed") }))));
  assert.equal(rows.length, 3, "one row per decoder layer");
  for (const row of rows) assert.equal(row.length, pieces.length);
  // The output layer (the top row) has formed most of what was written.
  assert.ok(rows[0].filter((c) => c.formed).length >= pieces.length / 2);
  assert.ok(rows[0].every((c, i) => c.formed === (c.text === pieces[i])));
  await page.click("#lens-grid tr:nth-child(2) td:nth-child(2) button");
  assert.equal(await page.$$eval("#lens-detail .lens-top tr", (r) => r.length), 5);
  await page.screenshot({ path: join(shots, "lens-1280.png"), fullPage: true });
});

// Spearman's ρ, written apart from the page's (web/views/rank.js).
function rho(xs, ys) {
  const rank = (v) => v.map((x) => v.filter((y) => y < x).length + (v.filter((y) => y === x).length - 1) / 2);
  const a = rank(xs), b = rank(ys), mean = (v) => v.reduce((s, x) => s + x, 0) / v.length;
  const ma = mean(a), mb = mean(b);
  const cov = a.reduce((s, x, i) => s + (x - ma) * (b[i] - mb), 0);
  const va = a.reduce((s, x) => s + (x - ma) ** 2, 0), vb = b.reduce((s, x) => s + (x - mb) ** 2, 0);
  return va && vb ? cov / Math.sqrt(va * vb) : null;
}

test("contributions show raw attention, what tokens add and rollout side by side", async () => {
  await openView("contributions");
  await page.waitForFunction(() => document.getElementById("contrib-note").textContent.length > 0, null, { timeout: 60000 });
  const raw = await pixels("#canvas-contrib-raw"), weighted = await pixels("#canvas-contrib-weighted");
  const rollout = await pixels("#canvas-contrib-third");
  assert.ok(raw.painted > 300 && weighted.painted > 300 && rollout.painted > 300);
  assert.ok((await pixels("#canvas-contrib-alti")).painted > 300, "the encoder's ALTI drawn");
  assert.notEqual(raw.hash, weighted.hash, "norm weighting changes the map");
  const shares = await page.$$eval("#contrib-shares td[data-share]", (t) => t.map((x) => Number(x.dataset.share)));
  const words = await page.$$eval("#contrib-shares tr:first-child th", (t) => t.length - 1);
  assert.equal(shares.length, 3 * words, "one share per decoder layer and word");
  assert.ok(shares.every((s) => s >= 0 && s <= 1));
  const alti = await page.$$eval("#contrib-shares td[data-alti-share]", (t) => t.map((x) => Number(x.dataset.altiShare)));
  assert.equal(alti.length, words, "one ALTI+ source share per word");
  // Cross-attention: erasure beside the two maps, and how well each agrees
  // with it on this sentence, as computed here from the native build's.
  await page.selectOption("#contrib-kind", "cross");
  await page.waitForSelector("#contrib-faithfulness:not([hidden])");
  assert.ok((await pixels("#canvas-contrib-weighted")).painted > 300);
  assert.ok((await pixels("#canvas-contrib-third")).painted > 300, "erasure drawn");
  assert.match(await page.textContent("#contrib-third-caption"), /Erasure/);
  assert.equal(await page.$eval("#sentence", (e) => e.value), "0");
  const source = await page.$eval("#source", (e) => e.value);
  const to = (await page.$eval("#direction", (e) => e.value)).split("-")[1];
  const dir = mkdtempSync(join(tmpdir(), "heed-"));
  native(source, to, await page.$eval("#beam", (e) => e.value),
    ["--contributions", "1", "--alti", "1", "--erasure", "remove", "--attention-json", join(dir, "e.json")]);
  const s = JSON.parse(readFileSync(join(dir, "e.json")))[0].sentences[0];
  const layer = Number(await page.$eval("#layer", (e) => e.value));
  assert.equal(await page.$eval("#head", (e) => e.value), "mean");
  const kept = s.sourcePieces.map((_, j) => j).filter((j) => s.sourcePieces[j] !== "</s>" && !/^<2.*>$/.test(s.sourcePieces[j]));
  const heads = s.attention.cross[layer];
  const agreement = (weight) => {
    let sum = 0, n = 0;
    s.erasure.effect.forEach((row, i) => {
      const r = rho(kept.map((j) => weight(i, j)), kept.map((j) => row[j]));
      if (r !== null) { sum += r; ++n; }
    });
    return (sum / n).toFixed(2);
  };
  assert.equal(await page.$eval("#contrib-faithfulness", (e) => e.dataset.raw),
    agreement((i, j) => heads.reduce((t, h) => t + h[i][j], 0) / heads.length));
  // ALTI+ up to this layer, its source columns (the decoder's rows are
  // [source pieces | decoder inputs]).
  assert.ok((await pixels("#canvas-contrib-alti")).painted > 300, "ALTI+ drawn");
  assert.equal(await page.$eval("#contrib-faithfulness", (e) => e.dataset.alti),
    agreement((i, j) => s.attention.alti.decoder[layer][i][j]));
  // ALTI+'s source share per word: the last layer's source columns summed.
  const last = s.attention.alti.decoder.at(-1), sources = s.sourcePieces.length;
  const altiShares = await page.$$eval("#contrib-shares td[data-alti-share]", (t) => t.map((x) => Number(x.dataset.altiShare)));
  assert.equal(altiShares.length, last.length);
  altiShares.forEach((v, i) => assert.ok(Math.abs(v - last[i].slice(0, sources).reduce((a, b) => a + b, 0)) < 1e-3, `word ${i}`));
  await page.screenshot({ path: join(shots, "contributions-1280.png"), fullPage: true });
  // The decoder's self-attention: ALTI+'s target-prefix part, which no
  // source column leaks into (its map is causal).
  const cross = await pixels("#canvas-contrib-alti");
  await page.selectOption("#contrib-kind", "decoder");
  await page.waitForSelector("#contrib-faithfulness[hidden]", { state: "attached" });
  const prefix = await pixels("#canvas-contrib-alti");
  assert.ok(prefix.painted > 300);
  assert.notEqual(prefix.hash, cross.hash, "the decoder's map is not cross-attention's");
  await page.selectOption("#contrib-kind", "encoder");
});

test("the neuron view's weights from q and k are the head's attention", async () => {
  await openView("neurons");
  await page.selectOption("#head", "2");
  await page.selectOption("#layer", "1");
  await page.selectOption("#neuron-kind", "cross");
  await page.waitForFunction(() => /cross-attention, layer 2, head 3:/.test(document.getElementById("neuron-note").textContent),
    null, { timeout: 60000 });
  const queries = await page.$$eval("#neuron-query option", (o) => o.length);
  assert.ok(queries >= 3, "one choice per target piece");
  const before = await page.$eval("#canvas-neurons", (c) => c.dataset.weights);
  await page.selectOption("#neuron-query", "1");
  await page.waitForFunction((b) => document.getElementById("canvas-neurons").dataset.weights !== b, before);
  const weights = JSON.parse(await page.$eval("#canvas-neurons", (c) => c.dataset.weights));
  assert.ok((await pixels("#canvas-neurons")).painted > 500);
  // The same row of the same head, from the native build's attention.
  const text = await page.$eval("#source", (t) => t.value);
  const [from, to] = (await page.$eval("#direction", (d) => d.value)).split("-");
  assert.equal(from === "en" ? "de" : "en", to);
  const sentence = Number(await page.$eval("#sentence", (s) => s.value || "0"));
  const beam = await page.$eval("#beam", (b) => b.value);
  const dir = mkdtempSync(join(tmpdir(), "heed-"));
  execFileSync(heed, ["translate", "--model", model, "--to", to, "--beam", beam, ...simd,
    "--attention-json", join(dir, "a.json")], { input: `${text}\n`, stdio: ["pipe", "ignore", "ignore"] });
  const want = JSON.parse(readFileSync(join(dir, "a.json")))[0].sentences[sentence].attention.cross[1][2][1];
  assert.equal(weights.length, want.length);
  weights.forEach((w, j) => assert.ok(Math.abs(w - want[j]) < 1e-4, `key ${j}: ${w} vs ${want[j]}`));
  // The decoder's query sees only the inputs up to its own step.
  await page.selectOption("#neuron-kind", "decoder");
  await page.waitForFunction(() => /masked self-attention, layer 2/.test(document.getElementById("neuron-note").textContent),
    null, { timeout: 60000 });
  await page.selectOption("#neuron-query", "1");
  await page.waitForFunction(() => JSON.parse(document.getElementById("canvas-neurons").dataset.weights)[3] === 0);
  const masked = JSON.parse(await page.$eval("#canvas-neurons", (c) => c.dataset.weights));
  assert.ok(masked.slice(2).every((w) => w === 0));
  assert.ok(Math.abs(masked[0] + masked[1] - 1) < 1e-5);
  await page.screenshot({ path: join(shots, "neurons-1280.png"), fullPage: true });
  await page.selectOption("#head", "mean");
});

test("another candidate forks the translation at that step; Back returns", async () => {
  await openView("steps");
  await page.$eval("#step", (s) => {
    s.value = "1";
    s.dispatchEvent(new Event("input"));
  });
  const before = await page.$$eval("#step-written span", (s) => s.map((x) => x.textContent));
  const button = await page.$("#step-candidates button.fork");
  assert.ok(button, "a candidate that was not chosen is clickable");
  const piece = await button.textContent();
  await button.click();
  await page.waitForSelector("#fork:not([hidden])");
  // The forked sentence keeps step 1 and takes the clicked piece at step 2.
  const after = await page.$$eval("#step-written span", (s) => s.map((x) => x.textContent));
  assert.equal(after[0], before[0]);
  assert.equal(after[1], piece);
  assert.match(await page.textContent("#fork-text"), /^Forked at step 2: /);
  await openView("lens");  // the fork has every view's data
  assert.ok(await page.$$eval("#lens-grid button", (b) => b.length) > 0);
  await openView("steps");
  await page.click("#fork-back");
  await page.waitForSelector("#fork", { state: "hidden" });
  assert.deepEqual(await page.$$eval("#step-written span", (s) => s.map((x) => x.textContent)), before);
});

test("a link reopens the text, direction, beam, view, layer, head and fork", async () => {
  const before = await page.inputValue("#source");
  await page.fill("#source", "Ein Hund läuft im Park. Zwei Männer spielen.");
  await translated(() => page.selectOption("#direction", "de-en"));
  await translated(() => page.selectOption("#beam", "2"));
  await page.selectOption("#sentence", "1");
  await openView("steps");
  await page.$eval("#step", (s) => {
    s.value = "1";
    s.dispatchEvent(new Event("input"));
  });
  await (await page.$("#step-candidates button.fork")).click();
  await page.waitForSelector("#fork:not([hidden])");
  await openView("heads");
  await page.selectOption("#layer", "0");
  await page.selectOption("#head", "2");
  const link = page.url();
  assert.match(link, /#t=.*&v=heads/);
  const want = { fork: await page.textContent("#fork-text"), target: await page.textContent("#target") };
  const other = await browser.newPage();
  try {
    await other.goto(link);
    // The fork's banner lives in Step by step; the link opens the head view.
    await other.waitForSelector("#fork:not([hidden])", { state: "attached", timeout: 60000 });
    await other.waitForSelector('[data-view="heads"][aria-selected="true"]');
    assert.equal(await other.inputValue("#source"), "Ein Hund läuft im Park. Zwei Männer spielen.");
    assert.equal(await other.inputValue("#direction"), "de-en");
    assert.equal(await other.inputValue("#beam"), "2");
    assert.equal(await other.inputValue("#sentence"), "1");
    assert.equal(await other.inputValue("#layer"), "0");
    assert.equal(await other.inputValue("#head"), "2");
    assert.equal(await other.textContent("#fork-text"), want.fork);
    assert.equal(await other.textContent("#target"), want.target);
  } finally {
    await other.close();
  }
  await openView("steps");
  await page.click("#fork-back");
  await page.fill("#source", before);
  await translated(() => page.selectOption("#direction", "en-de"));
  await translated(() => page.selectOption("#beam", "4"));
});

test("a link naming a view that is not one (Object.prototype names) opens the default view and translates", async () => {
  for (const view of ["toString", "__proto__", "constructor", "hasOwnProperty"]) {
    const other = await browser.newPage();
    const thrown = [];
    other.on("pageerror", (e) => thrown.push(e.message));
    try {
      await other.goto(`${address}#t=A+dog+runs.&d=en-de&v=${view}`);
      await other.waitForSelector('[data-view="alignment"][aria-selected="true"]', { timeout: 60000 });
      await other.waitForFunction(() => document.querySelector("#target").textContent.trim().length > 0);
      assert.equal(await other.isHidden("#error"), true, view);
      // And the next translation works too.
      const first = await other.textContent("#target");
      await other.fill("#source", "The cat sleeps on the sofa.");
      await other.click("#translate");
      await other.waitForFunction((was) => {
        const now = document.querySelector("#target").textContent.trim();
        return now.length > 0 && now !== was;
      }, first, { timeout: 60000 });
      assert.equal(await other.isHidden("#error"), true, view);
      assert.deepEqual(thrown, [], view);
    } finally {
      await other.close();
    }
  }
});

test("text the model cannot read (zero-width, control characters) leaves nothing pending and no error", async () => {
  for (const hash of ["#t=%E2%80%8B&d=en-de", "#t=%1F&d=en-de", "#t=A+dog+runs.%0A%E2%80%8B%0AThe+cat+sleeps.&d=en-de"]) {
    const other = await browser.newPage();
    const thrown = [];
    other.on("pageerror", (e) => thrown.push(e.message));
    try {
      await other.goto(`${address}${hash}`);
      await other.waitForSelector("#target[data-done]", { state: "attached", timeout: 60000 });
      assert.equal(await other.$$eval("#target .pending", (p) => p.length), 0, hash);
      assert.equal(await other.isHidden("#error"), true, hash);
      assert.deepEqual(thrown, [], hash);
      if (hash.includes("cat")) assert.ok((await other.textContent("#target")).trim().length > 0, hash);
      else assert.equal(await other.isHidden("#inside"), true, hash);
    } finally {
      await other.close();
    }
  }
});

test("compare draws two sentences' maps side by side and their difference where shapes match", async () => {
  await openView("compare");
  const source = await page.inputValue("#source");
  const note = async (text, measure) => {
    await page.selectOption("#compare-measure", measure);
    await page.fill("#compare-text", text);
    await page.click("#compare-go");
    await page.waitForFunction(() => !/^translating|^Type/.test(document.getElementById("compare-note").textContent));
    return page.textContent("#compare-note");
  };
  // The same sentence: every cell unchanged.
  const same = await note(source, "attention");
  const [, from, to] = same.match(/(\d+)% → (\d+)%/);
  assert.equal(from, to);
  assert.ok((await pixels("#canvas-compare-a")).painted > 2000);
  assert.deepEqual((await pixels("#canvas-compare-a")).hash, (await pixels("#canvas-compare-b")).hash);
  assert.ok((await pixels("#canvas-compare-diff")).painted > 2000);
  // Another length: both maps, no difference.
  const other = await note("Two old men are sitting on a long wooden bench near the water.", "contributions");
  assert.match(other, /differ in shape/);
  assert.notEqual((await pixels("#canvas-compare-a")).hash, (await pixels("#canvas-compare-b")).hash);
  assert.equal((await pixels("#canvas-compare-diff")).painted, 0);
  await page.screenshot({ path: join(shots, "compare-1280.png"), fullPage: true });
  // Nothing the model can read: said so, nothing drawn.
  assert.match(await note("\u200b", "attention"), /no sentence the model can read/);
  assert.equal((await pixels("#canvas-compare-b")).painted, 0);
});

test("the positional encoding view draws the engine's sinusoids and their similarity", async () => {
  await openView("positions");
  await page.waitForFunction(() => document.getElementById("canvas-similarity").width > 0);
  assert.ok((await pixels("#canvas-positions")).painted > 5000);
  assert.ok((await pixels("#canvas-similarity")).painted > 5000);
  await page.screenshot({ path: join(shots, "positions-1280.png"), fullPage: true });
});

test("word order without positions: the sentence translated with them off and shuffled, as the native build does", async () => {
  const source = "The dog bites the man.";
  await translated(() => page.fill("#source", source).then(() => page.click("#translate")));
  await openView("positions");
  await page.click("#word-order");
  await page.waitForSelector("#word-order-result[data-done]", { timeout: 60000 });
  const to = (await page.$eval("#direction", (e) => e.value)).split("-")[1];
  const beam = await page.$eval("#beam", (e) => e.value);
  const got = Object.fromEntries(await page.$$eval("#word-order-result dd",
    (dds) => dds.map((d) => [d.dataset.positions, d.textContent])));
  assert.equal(got.on, await page.textContent("#target"));
  for (const positions of ["off", "shuffled"]) {
    assert.equal(got[positions], native(source, to, beam, ["--positions", positions]), positions);
  }
});

test("switching off every head of a layer changes the run; switching them on restores it", async () => {
  await openView("ablation");
  const original = await page.textContent("#ablation-original");
  const run = async () => {
    await page.$eval("#ablation-result", (e) => delete e.dataset.text);
    await page.click("#ablate");
    await page.waitForFunction(() => document.getElementById("ablation-result").dataset.text !== undefined);
    return page.$eval("#ablation-result", (e) => ({ text: e.dataset.text, score: Number(e.dataset.score) }));
  };
  const want = await page.evaluate(() => document.getElementById("target").textContent);
  await page.click('[data-layer-key="cross/2"]');
  assert.equal(await page.$$eval('#ablation-grid input[data-key^="cross/2/"]:checked', (c) => c.length), 8);
  const ablated = await run();
  assert.ok(ablated.text !== want || !original.includes(`score ${ablated.score.toFixed(3)}`),
    "the output or the score differs with the heads off");
  assert.ok((await pixels("#canvas-ablation")).painted > 2000);
  await page.screenshot({ path: join(shots, "ablation-1280.png"), fullPage: true });
  await page.click("#ablation-clear");
  assert.equal(await page.$$eval("#ablation-grid input:checked", (c) => c.length), 0);
  const restored = await run();
  assert.equal(restored.text, want);
  assert.match(original, new RegExp(`score ${restored.score.toFixed(3).replace(".", "\\.")}`));
  assert.equal(await page.$$eval("#ablation-result mark", (m) => m.length), 0);
});

test("HTML mode: the markup kept as the native build keeps it, shown as text, with where each tag went", async () => {
  const source = 'Click <a href="/x">here</a> to <b>book</b> a table.';
  await page.check("#html");
  const got = await translated(() => page.fill("#source", source).then(() => page.click("#translate")));
  const to = (await page.$eval("#direction", (e) => e.value)).split("-")[1];
  const beam = await page.$eval("#beam", (e) => e.value);
  assert.equal(got, native(source, to, beam, ["--html", "1"]));
  assert.equal(await page.$$eval("#target *", (es) => es.length), 0, "the HTML is text, not elements");
  const rows = await page.$$eval("#html-tags tbody tr", (rs) => rs.map((r) => [...r.cells].map((c) => c.textContent)));
  assert.deepEqual(rows.map((r) => r.slice(0, 2)), [['<a href="/x">', "here"], ["<b>", "book"]]);
  for (const [tag, , target] of rows) assert.ok(got.includes(tag + target), `${tag}${target}`);
  assert.equal(await page.isVisible("#html-tags"), true);
  await page.uncheck("#html");
  await translated(() => page.click("#translate"));
  assert.equal(await page.isVisible("#html-tags"), false);
});

test("switching off whole sublayers and the positions gives the native build's translation", async () => {
  const source = "A man is riding a bicycle in the park.";
  const want = await translated(() => page.fill("#source", source).then(() => page.click("#translate")));
  await openView("ablation");
  const to = (await page.$eval("#direction", (e) => e.value)).split("-")[1];
  const beam = await page.$eval("#beam", (e) => e.value);
  const run = async () => {
    await page.$eval("#ablation-result", (e) => delete e.dataset.text);
    await page.click("#ablate");
    await page.waitForFunction(() => document.getElementById("ablation-result").dataset.text !== undefined);
    return page.$eval("#ablation-result", (e) => e.dataset.text);
  };
  const { encoder_layers: encoderLayers, decoder_layers: decoderLayers } = modelInfo.config;
  assert.equal(await page.$$eval("#ablation-sublayers input", (c) => c.length), encoderLayers * 2 + decoderLayers * 3);
  await page.check('#ablation-sublayers input[data-sublayer="cross/1"]');
  await page.selectOption("#ablation-positions", "off");
  const parts = await run();
  assert.equal(parts, native(source, to, beam, ["--switch-off", "cross:1", "--positions", "off"]));
  assert.notEqual(parts, want);
  await page.click("#ablation-clear");
  assert.equal(await page.$eval("#ablation-positions", (e) => e.value), "on");
  assert.equal(await page.$$eval("#ablation-sublayers input:checked", (c) => c.length), 0);
  assert.equal(await run(), want);
});

test("head roles: a sortable table for this sentence and the test sets; a click opens the head", async () => {
  const source = "A dog runs through the park with a ball.";
  await page.fill("#source", source);
  if (await page.$eval("#direction", (e) => e.value) !== "en-de") {
    await translated(() => page.selectOption("#direction", "en-de"));
  }
  await translated(() => page.click("#translate"));
  await openView("roles");
  await page.selectOption("#roles-scope", "sentence");
  await page.waitForSelector("#roles-table[data-scope=sentence] tr[data-kind]");
  // Encoder, decoder and cross-attention heads, each the sentence's own roles.
  const rows = () => page.$$eval("#roles-table tr[data-kind]", (trs) => trs.map((tr) => ({
    kind: tr.dataset.kind, layer: Number(tr.dataset.layer), head: Number(tr.dataset.head),
    cells: [...tr.cells].map((c) => c.textContent) })));
  const shown = await rows();
  const { encoder_layers: encoderLayers, decoder_layers: decoderLayers, heads } = modelInfo.config;
  assert.equal(shown.length, (encoderLayers + 2 * decoderLayers) * heads);
  const to = (await page.$eval("#direction", (e) => e.value)).split("-")[1];
  const dir = mkdtempSync(join(tmpdir(), "heed-"));
  native(source, to, await page.$eval("#beam", (e) => e.value), ["--attention-json", join(dir, "a.json")]);
  const want = JSON.parse(readFileSync(join(dir, "a.json")))[0].sentences[0].attention.roles;
  for (const r of shown) {
    const w = want[r.kind][r.layer][r.head];
    assert.equal(r.cells[3], w.role || "—", `${r.kind} ${r.layer}.${r.head}`);
    assert.equal(r.cells[10], w.distance.toFixed(2), `${r.kind} ${r.layer}.${r.head} distance`);
  }
  // Sorted by distance, ascending; a click on the header reverses it.
  const distances = (list) => list.map((r) => Number(r.cells[10]));
  const ascending = distances(shown);
  assert.deepEqual(ascending, [...ascending].sort((a, b) => a - b));
  await page.click('#roles-table button[data-sort="distance"]');
  await page.waitForFunction(() => document.querySelector('#roles-table th[aria-sort="descending"]'));
  const descending = distances(await rows());
  assert.deepEqual(descending, [...ascending].sort((a, b) => b - a));
  // The test sets: the shipped file's numbers.
  await page.selectOption("#roles-scope", "tests");
  await page.waitForSelector("#roles-table[data-scope=tests]");
  assert.match(await page.textContent("#roles-note"), /\d+ sentences of multi30k/);
  const sets = JSON.parse(readFileSync(join(root, "models/eval/heads.json")));
  await page.selectOption("#roles-kind", "encoder");
  await page.waitForFunction(() => document.querySelectorAll("#roles-table tr[data-kind=cross]").length === 0);
  const encoder = await rows();
  assert.equal(encoder.length, encoderLayers * heads);
  for (const r of encoder) {
    const w = sets.directions[to === "de" ? "en-de" : "de-en"].roles.encoder[r.layer][r.head];
    assert.equal(r.cells[10], w.distance.toFixed(2));
  }
  await page.screenshot({ path: join(shots, "roles-1280.png"), fullPage: true });
  // A phone: the table scrolls inside its box, the page does not.
  await page.setViewportSize({ width: 390, height: 844 });
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 0, `the page is ${overflow} px wider than the phone`);
  await page.screenshot({ path: join(shots, "roles-390.png"), fullPage: true });
  await page.setViewportSize({ width: 1280, height: 800 });
  // A click opens that head where its kind is drawn.
  await page.selectOption("#roles-kind", "all");
  await page.click("#roles-table tr[data-kind=cross][data-layer='1'][data-head='5']");
  await page.waitForSelector("#view-alignment:not([hidden])");
  assert.equal(await page.$eval("#layer", (e) => e.value), "1");
  assert.equal(await page.$eval("#head", (e) => e.value), "5");
  await page.selectOption("#head", "mean");
});

test("what matters: the importance grid and pruning curve from the shipped file; a cell presets Switch heads off", async () => {
  const data = JSON.parse(readFileSync(join(root, "models/eval/importance.json")));
  await openView("importance");
  for (const direction of ["en-de", "de-en"]) {
    await page.selectOption("#importance-direction", direction);
    await page.waitForSelector(`#importance-grids[data-ready="${direction} bleu"]`);
    const d = data.directions[direction];
    // Every head and sublayer of every layer: its drop in BLEU, as in the file.
    const cells = await page.$$eval("#importance-grids td button", (bs) => bs.map((b) => Number(b.dataset.drop)));
    const want = [];
    for (const [kind, subs] of [["encoder", ["encoder-self", "encoder-ffn"]], ["decoder", ["decoder-self", "decoder-ffn"]],
      ["cross", ["cross"]]]) {
      d.heads[kind].forEach((layer, l) => {
        for (const s of layer) want.push(d.baseline.bleu - s.bleu);
        for (const sub of subs) want.push(d.baseline.bleu - d.sublayers[sub][l].bleu);
      });
    }
    assert.equal(cells.length, want.length);
    cells.forEach((v, i) => assert.ok(Math.abs(v - want[i]) < 0.006, `cell ${i}: ${v} vs ${want[i]}`));
  }
  assert.ok((await pixels("#canvas-pruning")).painted > 800);
  assert.match(await page.textContent("#importance-note"), /multi30k val, \d+ sentences/);
  await page.screenshot({ path: join(shots, "importance-1280.png"), fullPage: true });
  await page.setViewportSize({ width: 390, height: 844 });
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 0, `the page is ${overflow} px wider than the phone`);
  await page.screenshot({ path: join(shots, "importance-390.png"), fullPage: true });
  await page.setViewportSize({ width: 1280, height: 800 });
  // The cross-attention sublayer of layer 2: ticked, alone, in Switch heads off.
  await page.click('#importance-grids table[data-block="cross"] tr:nth-child(4) td:last-child button');
  await page.waitForSelector("#view-ablation:not([hidden])");
  const ticked = await page.$$eval("#view-ablation input:checked", (bs) => bs.map((b) => b.dataset.sublayer ?? b.dataset.key));
  assert.deepEqual(ticked, ["cross/1"]);
  await page.click("#ablation-clear");
});

test("export writes the attention as JSON and the view as PNG", async () => {
  await translated(() => page.fill("#source", "Two dogs play in the snow.").then(() => page.click("#translate")));
  await openView("alignment");
  const [json] = await Promise.all([page.waitForEvent("download"), page.click("#export-json")]);
  const bytes = readFileSync(await json.path(), "utf8");
  // The CLI's --attention-json document for the same sentence and options,
  // byte for byte: one writer (core/result_json.cc), the same arithmetic.
  const to = (await page.$eval("#direction", (e) => e.value)).split("-")[1];
  const beam = await page.$eval("#beam", (e) => e.value);
  const doc = JSON.parse(bytes);
  assert.equal(doc.sentences.length, 1);
  const dir = mkdtempSync(join(tmpdir(), "heed-export-"));
  native(doc.sentences[0].source, to, beam, ["--logit-lens", "5", "--attention-json", join(dir, "a.json")]);
  assert.equal(bytes, readFileSync(join(dir, "a.json"), "utf8").slice(2, -3));
  const a = doc.sentences[0];
  const cross = a.attention.cross;
  assert.equal(cross.length, 3);
  assert.equal(cross[0].length, 8);
  assert.equal(cross[0][0].length, a.targetPieces.length);
  assert.equal(cross[0][0][0].length, a.sourcePieces.length);
  assert.equal(a.attention.encoder[0][0].length, a.sourcePieces.length);
  const [png] = await Promise.all([page.waitForEvent("download"), page.click("#export-png")]);
  const image = readFileSync(await png.path());
  assert.deepEqual([...image.subarray(1, 4)], [...Buffer.from("PNG")]);
});

test("a paragraph is translated sentence by sentence with the layout kept", async () => {
  const text = "A dog runs. Two men play football.\nA girl sits on a bench.";
  const got = await translated(() => page.fill("#source", text).then(() => page.click("#translate")));
  const lines = text.split("\n").map((l) => native(l, "de", 4));
  assert.equal(got, lines.join("\n"));
  assert.equal(await page.$$eval("#sentence option", (o) => o.length), 3);
  assert.ok(await page.$eval("#sentence-control", (e) => !e.hidden));
});

test("a 10-sentence paragraph is one request, decoded in batches, shown batch by batch", async () => {
  const lines = ["A dog runs.", "Two men play football.", "A girl sits on a bench.", "The sun is shining.",
    "A man reads a book.", "Children are playing.", "A cat sleeps.", "The car is red.",
    "A woman sings.", "The boy eats an apple."];
  await page.evaluate(() => {
    window.heedWorkerRequests.length = 0;
    window.heedPending = [];  // placeholders still waiting, at each change
    new MutationObserver(() => {
      window.heedPending.push(document.querySelectorAll("#target .pending").length);
    }).observe(document.getElementById("target"), { childList: true, subtree: true });
  });
  const got = await translated(() => page.fill("#source", lines.join(" ")).then(() => page.click("#translate")));
  assert.equal(got, lines.map((l) => native(l, "de", 4)).join(" "));
  assert.deepEqual(await page.evaluate(() => window.heedWorkerRequests.filter((op) => op === "translate")), ["translate"]);
  const pending = await page.evaluate(() => window.heedPending);
  // Batches of 4: some translations showed while others were still pending.
  assert.ok(pending.includes(6) && pending.includes(2), `pending over time: ${pending}`);
  assert.equal(await page.$$eval("#sentence option", (o) => o.length), 10);
});

for (const shared of [true, false]) {
  test(`in the browser, an abort stops a running request (${shared ? "shared memory" : "the worker restarted"}) and the translator goes on`, async () => {
    const out = await page.evaluate(async (shared) => {
      if (!shared) Object.defineProperty(globalThis, "crossOriginIsolated", { value: false, configurable: true });
      const { createTranslator } = await import("./lib/heed.js");
      const t = await createTranslator({ model: "models/heed-en-de-int8.heed" });
      const controller = new AbortController();
      let arrived = 0;
      const text = "A dog runs in the park. ".repeat(40);
      const error = await t.translate(text, {
        to: "de", maxBatch: 1, signal: controller.signal,
        onSentence: () => { if (++arrived === 1) controller.abort(); },
      }).then(() => "finished", (e) => e.name);
      const after = (await t.translate("A dog runs.", { to: "de" })).text;
      t.dispose();
      const isolated = globalThis.crossOriginIsolated;
      delete globalThis.crossOriginIsolated;  // the page's own value again
      return { error, arrived, after, isolated };
    }, shared);
    assert.equal(out.isolated, shared);
    assert.equal(out.error, "AbortError");
    assert.ok(out.arrived < 40, `${out.arrived} sentences arrived`);
    assert.equal(out.after, native("A dog runs.", "de", 4));
  });
}

test("text that looks like HTML is translated as text", async () => {
  const html = "<img src=x onerror=alert(1)> <b>bold</b>";
  await translated(() => page.fill("#source", html).then(() => page.click("#translate")));
  assert.equal(await page.$$eval("img", (i) => i.length), 0);
  assert.equal(await page.$$eval("main b", (i) => i.length), 0);
  assert.deepEqual(dialogs, []);
  await openView("alignment");
  assert.equal(await page.$$eval("#align-source img, #align-target img", (i) => i.length), 0);
});

test("errors are shown and the page keeps working", async () => {
  // A lone surrogate: text that cannot be encoded as UTF-8.
  await page.$eval("#source", (t) => { t.value = "A dog \uD800 runs."; });
  await page.click("#translate");
  await page.waitForSelector("#error:not([hidden])");
  assert.match(await page.textContent("#error"), /not valid Unicode: unpaired surrogate at index 6/);
  assert.equal(await page.textContent("#target"), "");
  // Empty text translates to nothing, without an error.
  await page.fill("#source", "");
  await page.click("#translate");
  assert.ok(await page.$eval("#error", (e) => e.hidden));
  assert.equal(await page.textContent("#target"), "");
  const text = await translated(() => page.fill("#source", "A dog.").then(() => page.click("#translate")));
  assert.equal(text, native("A dog.", "de", 4));
  assert.ok(await page.$eval("#error", (e) => e.hidden));
});

test("the page also runs from the repository itself (serve.mjs without --root, at /web/)", async () => {
  const repo = fork(join(root, "scripts/serve.mjs"), ["--port", "0"], { silent: true });
  try {
    const base = await new Promise((resolve) => repo.on("message", (m) => m.address && resolve(m.address)));
    const other = await browser.newPage();
    await other.goto(`${base}web/`);
    await other.waitForSelector("body[data-ready=true]", { timeout: 60000 });
    await other.fill("#source", "A dog runs.");
    await other.click("#translate");
    const want = native("A dog runs.", "de", 4);
    await other.waitForFunction((w) => document.getElementById("target").textContent === w, want, { timeout: 60000 });
    await other.close();
  } finally {
    repo.kill();
  }
});

test("the page and engine are served compressed, and a second visit transfers almost nothing", async (t) => {
  const context = await browser.newContext();
  const visit = async (p) => {
    const responses = [];
    p.on("response", (r) => responses.push(r));
    await p.goto(address);
    await p.waitForSelector("body[data-ready=true]", { timeout: 60000 });
    await p.waitForSelector("#target[data-done]", { timeout: 60000 });
    let bytes = 0;
    // -1: a body the page did not fetch itself (from its service worker).
    for (const r of responses) bytes += Math.max(0, (await r.request().sizes()).responseBodySize);
    return { bytes, responses };
  };
  try {
    const page1 = await context.newPage();
    const first = await visit(page1);
    // One sentence runs on the single-threaded engine; the threaded one
    // comes with the first call of several sentences.
    const wasm = first.responses.find((r) => r.url().endsWith("/heed_engine.wasm"));
    assert.ok(wasm, "the single-threaded engine was not loaded");
    assert.equal(wasm.headers()["content-encoding"], "br");
    assert.ok(!first.responses.some((r) => r.url().endsWith("heed_engine_threads.wasm")), "the threaded engine was loaded");
    await page1.close();
    const second = await visit(await context.newPage());
    t.diagnostic(`transferred: first visit ${(first.bytes / 1e6).toFixed(2)} MB, second ${(second.bytes / 1e3).toFixed(1)} KB`);
    // The model (10.89 MB), and brotli'd: the single-threaded engine (0.26
    // MB), the language detector's model (0.14 MB), the page and the module
    // (the service worker fetches the threaded engine for itself).
    assert.ok(first.bytes < modelInfo.bytes + 0.65e6, `first visit ${first.bytes} bytes`);
    assert.ok(second.bytes < 50e3, `second visit ${second.bytes} bytes`);
  } finally {
    await context.close();
  }
});

test("after one visit the page opens and translates offline, saying the model came from the cache", async () => {
  const context = await browser.newContext();
  try {
    const p = await context.newPage();
    await p.goto(address);
    await p.waitForSelector("body[data-ready=true]", { timeout: 60000 });
    await p.evaluate(() => navigator.serviceWorker.ready);
    await context.setOffline(true);
    await p.reload();
    await p.waitForSelector("body[data-ready=true]", { timeout: 60000 });
    assert.match(await p.textContent("#model-source"), /from this browser's cache/);
    await p.fill("#source", "A dog runs.");
    await p.click("#translate");
    const want = native("A dog runs.", "de", 4);
    await p.waitForFunction((w) => document.getElementById("target").textContent === w, want, { timeout: 60000 });
  } finally {
    await context.close();
  }
});

test("in the browser, a missing engine or worker rejects at once, naming the address", async () => {
  const logged = errors.length;
  const messages = await page.evaluate(async () => {
    const { createTranslator } = await import("./lib/heed.js");
    const model = "models/heed-en-de-int8.heed";
    const message = (options) => createTranslator({ model, ...options }).then(() => "loaded", (e) => e.message);
    return [await message({ wasmUrl: "lib/missing.wasm" }), await message({ wasmUrl: "lib/missing.wasm", worker: false }),
            await message({ workerUrl: "lib/missing-worker.js" })];
  });
  assert.match(messages[0], /cannot load the engine from http:.*\/lib\/missing\.wasm: HTTP 404/);
  assert.match(messages[1], /cannot load the engine from http:.*\/lib\/missing\.wasm: HTTP 404/);
  assert.match(messages[2], /the worker http:.*\/lib\/missing-worker\.js failed/);
  // The browser logs the 404s this test asked for; only those.
  assert.ok(errors.splice(logged).every((e) => /404|missing/.test(e)));
});

test("the page fits a phone screen", async () => {
  await page.setViewportSize({ width: 390, height: 844 });
  await translated(() => page.fill("#source", "Two men are playing football on the beach.").then(() => page.click("#translate")));
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 0, `the page is ${overflow} px wider than the phone`);
  await page.screenshot({ path: join(shots, "translate-390.png"), fullPage: false });
  for (const view of ["alignment", "model", "steps"]) {
    await openView(view);
    await page.screenshot({ path: join(shots, `${view}-390.png`), fullPage: true });
  }
  assert.ok((await pixels("#canvas-steps")).painted > 300);
  // The contrastive "why not?", the Contributions view with ALTI+ and the
  // unsure mark fit the phone too.
  await page.click("#step-candidates button.why-not");
  await page.waitForSelector("#step-contrast[data-done]", { timeout: 60000 });
  await page.screenshot({ path: join(shots, "why-not-390.png"), fullPage: true });
  await openView("contributions");
  await page.waitForFunction(() => document.getElementById("contrib-note").textContent.length > 0, null, { timeout: 60000 });
  assert.ok((await pixels("#canvas-contrib-alti")).painted > 300);
  await page.screenshot({ path: join(shots, "contributions-390.png"), fullPage: true });
  await choose("#direction", "en-de");
  await translated(() => page.fill("#source", "A short-circuit was reported to have occurred there during sawing.")
    .then(() => page.click("#translate")));
  await page.waitForSelector("#target > span.unsure-sentence");
  await page.screenshot({ path: join(shots, "unsure-390.png"), fullPage: false });
  const wider = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(wider <= 0, `with the views opened the page is ${wider} px wider than the phone`);
  await page.setViewportSize({ width: 1280, height: 800 });
});

test("the guided tour walks the sentence on screen in seven steps, by keyboard, at 1280 and 390 px", async () => {
  await choose("#direction", "en-de");
  await choose("#beam", "4");
  await translated(() => page.fill("#source", "A dog runs through the park with a ball.").then(() => page.click("#translate")));
  const json = join(mkdtempSync(join(tmpdir(), "heed-tour-")), "a.json");
  execFileSync(heed, ["translate", "--model", model, "--to", "de", "--beam", "4", ...simd, "--attention-json", json],
    { input: "A dog runs through the park with a ball.\n", stdio: ["pipe", "ignore", "ignore"] });
  const pieces = JSON.parse(readFileSync(json, "utf8"))[0].sentences[0].sourcePieces.length;
  const layers = modelInfo.config.encoder_layers;
  for (const width of [1280, 390]) {
    await page.setViewportSize({ width, height: width === 390 ? 844 : 800 });
    await page.click("#tour-open");
    await page.waitForSelector("#tour:not([hidden])");
    const seen = [];
    for (let i = 0; i < 7; ++i) {
      await page.waitForSelector(`#tour[data-step="${i}"]`);
      const view = await page.$eval(".view.tour-focus", (v) => v.id);
      assert.equal(await page.isHidden(`#${view}`), false, `step ${i + 1}: its view is open`);
      seen.push({ view, title: await page.textContent("#tour-title"), text: await page.textContent("#tour-text") });
      if (i === 0) await page.screenshot({ path: join(shots, `tour-${width}.png`) });
      if (i < 6) await page.keyboard.press("ArrowRight");
    }
    assert.deepEqual(seen.map((x) => x.view), ["view-alignment", "view-positions", "view-encoder",
      "view-decoder", "view-alignment", "view-steps", "view-steps"]);
    assert.match(seen[0].text, new RegExp(`^The model does not read words but ${pieces} pieces .* <2de>`));
    assert.match(seen[1].text, /vector of 256 numbers/);
    assert.match(seen[2].text, new RegExp(`${layers} encoder layers, each with 8 heads`));
    assert.match(seen[5].text, /all 8000 pieces/);
    assert.match(seen[6].text, /beam size 4/);
    if (width === 390) {
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      assert.ok(overflow <= 0, `the tour makes the page ${overflow} px too wide`);
    }
    await page.keyboard.press("ArrowLeft");
    await page.waitForSelector('#tour[data-step="5"]');
    await page.keyboard.press("Escape");
    await page.waitForSelector("#tour", { state: "hidden" });
    assert.equal(await page.$$eval(".view.tour-focus", (v) => v.length), 0);
  }
  await page.setViewportSize({ width: 1280, height: 800 });
});

test("a sentence the model was unsure of is marked, at quality.json's threshold, with why on hover", async () => {
  const { warning } = JSON.parse(readFileSync(join(root, "models/eval/quality.json"), "utf8")).directions["en-de"];
  const lines = ["A short-circuit was reported to have occurred there during sawing.", "A dog runs in the park."];
  const out = join(mkdtempSync(join(tmpdir(), "heed-quality-")), "a.json");
  execFileSync(heed, ["translate", "--model", model, "--to", "de", "--beam", "4", ...simd,
    "--attention-json", out], { input: lines.join("\n") + "\n", stdio: ["pipe", "ignore", "ignore"] });
  const want = JSON.parse(readFileSync(out, "utf8")).map((r) => {
    const e = r.sentences[0].entropies;
    return e.reduce((a, b) => a + b, 0) / e.length > warning.above;
  });
  assert.deepEqual(want, [true, false], "the short circuit is above the threshold, the dog below");
  await choose("#direction", "en-de");
  await choose("#beam", "4");
  await translated(() => page.fill("#source", lines.join(" ")).then(() => page.click("#translate")));
  const marked = await page.$$eval("#target > span", (spans) =>
    spans.map((x) => ({ marked: x.classList.contains("unsure-sentence"), title: x.title })));
  assert.deepEqual(marked.map((m) => m.marked), want);
  assert.match(marked[0].title, /model was unsure .* chrF \d+ against \d+/);
});

test("Open a model…: a user's .heed file runs in the page with every view; dropped too; Back restores the page's model", async () => {
  const mine = join(root, "tests/fixtures/tiny_marian.heed");  // Marian's conventions, F32
  const mineNative = (line, to) => execFileSync(heed,
    ["translate", "--model", mine, "--to", to, "--beam", "4"],
    { input: `${line}\n`, stdio: ["pipe", "pipe", "ignore"] }).toString().split("\n")[0];
  const opened = async (action) => {
    const before = await page.getAttribute("#target", "data-done");
    await action();
    await page.waitForSelector("body[data-model=user]", { timeout: 60000 });
    await page.waitForFunction((b) => document.getElementById("target").dataset.done !== b, before, { timeout: 60000 });
  };
  await choose("#direction", "en-de");
  await page.fill("#source", "A dog runs in the park.");
  await opened(() => page.setInputFiles("#model-file", mine));
  assert.match(await page.textContent("#model-info"), /2 encoder \+ 2 decoder layers, 4 heads, d_model 32/);
  assert.match(await page.textContent("#model-source"), /tiny_marian\.heed/);
  assert.equal(await page.isHidden("#model-reset"), false);
  assert.equal(await page.textContent("#target"), mineNative("A dog runs in the park.", "de"));
  // Every view opens on it without an error; the measurements of the
  // page's model say they are not of this one.
  const views = await page.$$eval("#inside [data-view]", (b) => b.map((x) => x.dataset.view));
  assert.ok(views.length >= 14, views.join(" "));
  for (const view of views) {
    await openView(view);
    await page.waitForTimeout(300);
    assert.equal(await page.isHidden("#error"), true, `${view}: ${await page.textContent("#error")}`);
  }
  assert.match(await page.textContent("#importance-note"), /not the one you opened/);
  await openView("alignment");
  assert.ok((await pixels("#canvas-alignment")).painted > 100);
  await page.screenshot({ path: join(shots, "open-model-1280.png") });

  // Back, then the same file dropped on the page.
  await translated(() => page.click("#model-reset"));
  assertModelInfo(await page.textContent("#model-info"));
  assert.equal(await page.isHidden("#model-reset"), true);
  const bytes = [...readFileSync(mine)];
  await opened(() => page.evaluate((b) => {
    const data = new DataTransfer();
    data.items.add(new File([new Uint8Array(b)], "dropped.heed"));
    document.body.dispatchEvent(new DragEvent("drop", { dataTransfer: data, bubbles: true, cancelable: true }));
  }, bytes));
  assert.match(await page.textContent("#model-source"), /dropped\.heed/);
  // A file that is not a model: a clear error, and the model in use stays.
  const before = await page.textContent("#model-info");
  await page.setInputFiles("#model-file", { name: "notes.heed", mimeType: "application/octet-stream",
    buffer: Buffer.from("not a model") });
  await page.waitForSelector("#error:not([hidden])");
  assert.match(await page.textContent("#error"), /model|header/i);
  assert.equal(await page.textContent("#model-info"), before);
  await translated(() => page.click("#model-reset"));
  await page.waitForSelector("body[data-model=page]");
});

test("no request left the origin and nothing was logged as an error", () => {
  assert.deepEqual(foreign, []);
  assert.deepEqual(errors, []);
  assert.deepEqual(dialogs, []);
});
