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
  const inner = (b) => {
    for (let e = b.parentElement; e && e !== root.parentNode; e = e.parentElement) if (found.has(e)) return true;
    return false;
  };
  return [...found].filter((b) => !inner(b));
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
  const units = new Map();  // block -> { original, translated }: its HTML as the page has it
  const changed = [];        // nodes the page changed while the original was shown
  let showing = "translation", applying = false, observer = null, stopped = false;
  let pending = Promise.resolve();

  const report = (e, block) => {
    try {
      onError(e, block);
    } catch {
      // a throwing onError must not stop later translations
    }
  };

  // Runs fn, whose own changes to the DOM the observer then ignores; the
  // page's changes queued before it are handled first.
  const apply = (fn) => {
    const before = observer?.takeRecords() ?? [];
    if (before.length) onMutations(before);
    applying = true;
    try {
      fn();
    } finally {
      observer?.takeRecords();
      applying = false;
    }
  };

  const translateBlock = async (block) => {
    const html = block.innerHTML;
    const known = units.get(block);
    if (known?.translated === html) return;  // ours already
    // The original stays the first one seen: a block changed after its
    // translation was shown holds translated text beside the new.
    const original = known?.original ?? html;
    units.set(block, { original, translated: undefined });
    try {
      const translated = await translator.translate(html, { html: true, signal });
      if (stopped || !block.isConnected || block.innerHTML !== html) return;  // its own turn comes
      let shown = translated;
      if (showing === "translation") {
        apply(() => { block.innerHTML = translated; });
        shown = block.innerHTML;  // as the browser serialises it
      }
      units.set(block, { original, translated: shown });
    } catch (e) {
      units.delete(block);
      report(e, block);
    }
  };

  const run = (nodes) => {
    const blocks = new Set(nodes.flatMap((n) => blocksIn(n, root)));
    pending = pending.then(() => Promise.all([...blocks].map(translateBlock)));
    return pending;
  };

  const show = (which) => {
    if (which === showing) return;
    // Blocks the page changed while the original was shown keep those
    // changes: they are translated again rather than overwritten.
    const redo = which === "translation" ? changed.splice(0) : [];
    for (const n of redo) {
      let e = n.nodeType === 1 ? n : n.parentElement;
      while (e && !units.has(e) && e !== root) e = e.parentElement;
      if (e) units.delete(e);
    }
    showing = which;
    apply(() => {
      for (const [block, u] of units) {
        if (u.translated !== undefined) block.innerHTML = which === "original" ? u.original : u.translated;
      }
    });
    if (redo.length) controller.done = run(redo);
  };

  function onMutations(records) {
    if (stopped) return;
    const nodes = [];
    for (const r of records) {
      if (r.type === "characterData") nodes.push(r.target);
      for (const n of r.addedNodes) nodes.push(n);
    }
    if (!nodes.length) return;
    if (showing === "translation") controller.done = run(nodes);
    else changed.push(...nodes);
  }

  if (observe) {
    observer = new root.ownerDocument.defaultView.MutationObserver((records) => {
      if (!applying) onMutations(records);
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
