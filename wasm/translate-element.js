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
// inside it, and a framework's hold on them, do not survive; the block
// elements themselves stay, and so do the values of its form fields.

// Elements whose text heed translates as one unit, with what they hold.
const BLOCKS = new Set(["ADDRESS", "ARTICLE", "ASIDE", "BLOCKQUOTE", "BODY", "CAPTION", "DD", "DETAILS", "DIV",
  "DL", "DT", "FIELDSET", "FIGCAPTION", "FIGURE", "FOOTER", "FORM", "H1", "H2", "H3", "H4", "H5", "H6", "HEADER",
  "LEGEND", "LI", "MAIN", "NAV", "OL", "P", "PRE", "SECTION", "SUMMARY", "TABLE", "TD", "TH", "TR", "UL", "BUTTON",
  "LABEL", "OPTION"]);
// Elements whose text is never translated.
const SKIP = new Set(["SCRIPT", "STYLE", "TEXTAREA", "NOSCRIPT", "TEMPLATE", "SVG", "MATH", "PRE", "IFRAME",
  "OBJECT", "SELECT", "INPUT"]);

// The element's own markup keeps it as it is (a copy not in the page
// included, which has no isContentEditable).
function kept(e) {
  const editable = e.getAttribute?.("contenteditable")?.toLowerCase();
  return SKIP.has(e.nodeName.toUpperCase()) || e.classList?.contains("notranslate") || e.isContentEditable ||
    ["", "true", "plaintext-only"].includes(editable) || e.getAttribute?.("translate")?.toLowerCase() === "no";
}

function skipped(element, root) {
  for (let e = element; e && e !== root.parentNode; e = e.parentElement) if (kept(e)) return true;
  return false;
}

// What a block sends: its HTML with every element inside that must stay
// as it is marked translate="no" (heed's HTML mode keeps such elements
// whole, byte for byte), the marks only on a copy. MARK holds the
// element's own translate attribute, if any, after a "="; "+" marks a
// span of our own around a text node in `ours` (see alreadyWritten).
const MARK = "data-heed-kept";
function markedHtml(block, ours) {
  const copy = block.cloneNode(true);
  let marked = wrapOurs(copy, ours);
  for (const e of copy.querySelectorAll("*")) {
    const own = e.getAttribute("translate");
    if (kept(e) && own?.toLowerCase() !== "no" && !e.closest(`[${MARK}]`)) {
      e.setAttribute(MARK, own === null ? "" : `=${own}`);
      e.setAttribute("translate", "no");
      marked = true;
    }
  }
  return marked ? copy.innerHTML : block.innerHTML;
}

// The block's translatable text nodes that still hold what a translation
// wrote (`written`: text node -> what was written), after the page edited
// the block around them, by their index in textNodes(block): sent kept, so
// that the model sees only the page's words. null when there are no such
// words (the page only moved translated text): nothing to send.
function alreadyWritten(block, written) {
  const texts = textNodes(block).map((t, i) => [t, i])
    .filter(([t]) => t.data.trim() && !skipped(t.parentElement, block));
  const ours = texts.filter(([t]) => written.get(t) === t.data).map(([, i]) => i);
  return texts.length && ours.length === texts.length ? null : ours;
}

// In `copy` (the block's clone), the text nodes at the indices `ours`
// wrapped to be kept.
function wrapOurs(copy, ours) {
  const copies = textNodes(copy);
  for (const i of ours) {
    const span = copy.ownerDocument.createElement("span");
    span.setAttribute(MARK, "+");
    span.setAttribute("translate", "no");
    copies[i].replaceWith(span);
    span.append(copies[i]);
  }
  return ours.length > 0;
}

// The text nodes under `node`, in document order (not node itself).
function textNodes(node) {
  const walker = node.ownerDocument.createTreeWalker(node, 4 /* NodeFilter.SHOW_TEXT */);
  const all = [];
  for (let t = walker.nextNode(); t; t = walker.nextNode()) all.push(t);
  return all;
}

// The translation with the marks taken out again.
function unmarked(html, doc) {
  if (!html.includes(MARK)) return html;
  const t = doc.createElement("template");
  t.innerHTML = html;
  for (const e of t.content.querySelectorAll(`[${MARK}]`)) {
    const own = e.getAttribute(MARK);
    e.removeAttribute(MARK);
    if (own === "+") e.replaceWith(...e.childNodes);
    else if (own.startsWith("=")) e.setAttribute("translate", own.slice(1));
    else e.removeAttribute("translate");
  }
  return t.innerHTML;
}

// The block's form fields as the user left them (innerHTML holds only
// their defaults), to be given back to the same fields after a rewrite.
const FIELDS = "input, textarea, select";
const fieldKey = (f) => `${f.nodeName}|${f.type}|${f.name}|${f.id}`;
function fieldStates(block) {
  return [...block.querySelectorAll(FIELDS)].map((f) => ({ key: fieldKey(f), value: f.value, checked: f.checked }));
}
function restoreFields(block, states) {
  const fields = [...block.querySelectorAll(FIELDS)];
  if (fields.length !== states.length) return;
  fields.forEach((f, i) => {
    const s = states[i];
    if (s.key !== fieldKey(f)) return;
    if (f.type === "checkbox" || f.type === "radio") f.checked = s.checked;
    else if (f.type !== "file") f.value = s.value;
  });
}

// block.innerHTML = html, its form fields kept as they were.
function rewrite(block, html) {
  const states = fieldStates(block);
  block.innerHTML = html;
  restoreFields(block, states);
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
  for (const text of node.nodeType === 3 ? [node] : textNodes(node)) {
    if (!text.data.trim()) continue;
    const block = blockOf(text, root);
    if (block && !skipped(text.parentElement, root)) found.add(block);
  }
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
  const written = new WeakMap();  // text node -> its text, as a translation wrote it
  let showing = "translation", applying = false, observer = null, stopped = false;
  let pending = Promise.resolve();
  const stopping = new AbortController();  // stop(): the translations under way end too
  const doc = root.ownerDocument;

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

  // Writes a block's translation, remembering its text nodes: the page may
  // edit the block later, and only its own text is sent again.
  const showIn = (block, translated) => {
    rewrite(block, translated);
    for (const t of textNodes(block)) written.set(t, t.data);
  };

  // A block that changes while it is translated (an attribute, text the
  // observer does not see) is translated again, this many times at most.
  const TRIES = 3;
  const translateBlock = async (block, tries = 1) => {
    if (stopped) return;
    const html = block.innerHTML;
    const known = units.get(block);
    if (known?.translated === html) return;  // ours already
    // The original stays the first one seen: a block changed after its
    // translation was shown holds translated text beside the new.
    const original = known?.original ?? html;
    const ours = alreadyWritten(block, written);
    if (!ours) {  // translated text moved about: still the translation
      units.set(block, { original, translated: html });
      return;
    }
    units.set(block, { original, translated: undefined });
    try {
      const sent = markedHtml(block, ours);
      const translated = unmarked(await translator.translate(sent, { html: true, signal: stopping.signal }), doc);
      if (stopped || !block.isConnected) return;
      if (block.innerHTML !== html) {
        // The page's change is part of the original now.
        if (known) units.set(block, known);
        else units.delete(block);
        if (tries < TRIES) return translateBlock(block, tries + 1);
        throw new Error("heed: the block kept changing while it was translated");
      }
      let shown = translated;
      if (showing === "translation") {
        apply(() => showIn(block, translated));
        shown = block.innerHTML;  // as the browser serialises it
      }
      units.set(block, { original, translated: shown });
    } catch (e) {
      units.delete(block);
      if (!stopped) report(e, block);
    }
  };

  const run = (nodes) => {
    if (stopped) return pending;
    const blocks = new Set(nodes.flatMap((n) => blocksIn(n, root)));
    pending = pending.then(() => Promise.all([...blocks].map((b) => translateBlock(b))));
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
        if (u.translated === undefined) continue;
        if (which === "original") rewrite(block, u.original);
        else showIn(block, u.translated);
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
  const controller = {
    done: null,
    get showing() { return showing; },
    showOriginal: () => show("original"),
    showTranslation: () => show("translation"),
    toggle: () => show(showing === "original" ? "translation" : "original"),
    stop: () => {
      stopped = true;
      observer?.disconnect();
      stopping.abort();
    },
  };
  if (signal?.aborted) controller.stop();
  signal?.addEventListener("abort", () => controller.stop(), { once: true });
  controller.done = run([root]);
  return controller;
}
