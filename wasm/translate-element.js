// Translates a page in place: the text of a DOM subtree, block by block,
// with its inline markup kept (heed's HTML mode), the originals kept to
// show again, and, with observe, what is added to the subtree later.
//
//   import { translateElement } from "heed/translate-element";
//   const t = await Translator.create({ sourceLanguage: "en", targetLanguage: "de" });
//   const page = translateElement(document.querySelector("article"), t, { observe: true });
//   await page.done;      // every block translated
//   page.showOriginal();  // and page.showTranslation(), page.toggle()
//   page.stop();          // no more observing; what is shown stays
//
// `translator` is anything with translate(html, { html: true, signal }) that
// resolves to HTML: a translator of heed/translator-api, or
// { translate: (text, o) => heed.translate(text, { ...o, to: "de" }).then((r) => r.text) }.
// A block's content is replaced (innerHTML), so listeners on elements
// inside it do not survive; the block elements themselves stay.

// Elements whose text heed translates as one unit, with what they hold.
const BLOCKS = new Set(["ADDRESS", "ARTICLE", "ASIDE", "BLOCKQUOTE", "BODY", "CAPTION", "DD", "DETAILS", "DIV",
  "DL", "DT", "FIELDSET", "FIGCAPTION", "FIGURE", "FOOTER", "FORM", "H1", "H2", "H3", "H4", "H5", "H6", "HEADER",
  "LEGEND", "LI", "MAIN", "NAV", "OL", "P", "PRE", "SECTION", "SUMMARY", "TABLE", "TD", "TH", "TR", "UL", "BUTTON",
  "LABEL", "OPTION"]);
// Elements whose text is never translated.
const SKIP = new Set(["SCRIPT", "STYLE", "TEXTAREA", "NOSCRIPT", "TEMPLATE", "SVG", "MATH", "PRE", "IFRAME",
  "OBJECT", "SELECT", "INPUT"]);

function skipped(element, root) {
  for (let e = element; e && e !== root.parentNode; e = e.parentElement) {
    if (SKIP.has(e.nodeName.toUpperCase()) || e.getAttribute?.("translate") === "no" ||
        e.classList?.contains("notranslate") || e.isContentEditable) return true;
  }
  return false;
}

// The block a text node belongs to: its nearest block ancestor in root.
function blockOf(node, root) {
  for (let e = node.parentElement; e; e = e.parentElement) {
    if (e === root || BLOCKS.has(e.nodeName.toUpperCase())) return e;
  }
  return null;
}

// The blocks under `node` (itself included) with text to translate, none
// inside another: the outer one's HTML holds the inner one's.
function blocksIn(node, root) {
  const found = new Set();
  const doc = root.ownerDocument;
  const walker = doc.createTreeWalker(node, 4 /* NodeFilter.SHOW_TEXT */);
  const visit = (text) => {
    if (!text.data.trim()) return;
    const block = blockOf(text, root);
    if (block && !skipped(text.parentElement, root)) found.add(block);
  };
  if (node.nodeType === 3) visit(node);
  for (let t = walker.nextNode(); t; t = walker.nextNode()) visit(t);
  return [...found].filter((b) => ![...found].some((o) => o !== b && o.contains(b)));
}

/**
 * Translates root's text in place; returns { done, showOriginal,
 * showTranslation, toggle, showing, stop }. done resolves when every block
 * found so far is translated (again after each observed change); a block
 * that fails keeps its original and the error goes to onError.
 */
export function translateElement(root, translator, { observe = false, signal, onError = () => {} } = {}) {
  if (!root || typeof root.querySelectorAll !== "function") throw new TypeError("heed: translateElement needs an element");
  if (typeof translator?.translate !== "function") throw new TypeError("heed: translateElement needs a translator");
  const units = new Map();  // block -> { original, translated }
  let showing = "translation", applying = false, observer = null, stopped = false;
  let pending = Promise.resolve();

  const apply = (fn) => {
    applying = true;
    try {
      fn();
    } finally {
      observer?.takeRecords();
      applying = false;
    }
  };

  const translateBlock = async (block) => {
    const original = block.innerHTML;
    if (units.get(block)?.translated === original) return;  // ours already
    units.set(block, { original, translated: undefined });
    try {
      const translated = await translator.translate(original, { html: true, signal });
      if (stopped && signal?.aborted) return;
      if (block.innerHTML !== original) return;  // changed meanwhile: its own turn comes
      units.set(block, { original, translated });
      if (showing === "translation") apply(() => { block.innerHTML = translated; });
    } catch (e) {
      units.delete(block);
      onError(e, block);
    }
  };

  const run = (nodes) => {
    const blocks = new Set(nodes.flatMap((n) => blocksIn(n, root)));
    pending = pending.then(() => Promise.all([...blocks].map(translateBlock)));
    return pending;
  };

  const show = (which) => {
    showing = which;
    apply(() => {
      for (const [block, u] of units) {
        if (u.translated !== undefined) block.innerHTML = which === "original" ? u.original : u.translated;
      }
    });
  };

  if (observe) {
    observer = new root.ownerDocument.defaultView.MutationObserver((records) => {
      if (applying || stopped) return;
      const nodes = [];
      for (const r of records) {
        if (r.type === "characterData") nodes.push(r.target);
        for (const n of r.addedNodes) nodes.push(n);
      }
      if (nodes.length && showing === "translation") controller.done = run(nodes);
    });
    observer.observe(root, { childList: true, subtree: true, characterData: true });
  }
  signal?.addEventListener("abort", () => controller.stop());

  const controller = {
    done: run([root]),
    get showing() { return showing; },
    showOriginal: () => show("original"),
    showTranslation: () => show("translation"),
    toggle: () => show(showing === "original" ? "translation" : "original"),
    stop: () => {
      stopped = true;
      observer?.disconnect();
    },
  };
  return controller;
}
