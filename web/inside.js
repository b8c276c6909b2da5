// The attention explorer: one translated sentence seen through twelve views,
// all read from what heed.js returns (r.sentences[i]). This module is the
// router: the shared selection (sentence, layer, head, hovered cell), the
// tabs, forking the translation at a step, and export. Each view is a
// module of explorer/ with one interface:
//
//   mount(root, ctx) -> { render(selection), reset?(), select?(step) }
//
// root is the view's <article>; ctx = { translator, onError, render(),
// hover(focus), fork(step, piece), width(element), current(selection):
// whether its sentence is still the one shown };
// a selection = { sentence, attention, options, layer(kind), head, focus }.
import { heads, labels, layers, shape } from "./views/attention.js";
import { markDiff } from "./views/diff.js";
import * as ablation from "./explorer/ablation.js";
import * as alignment from "./explorer/alignment.js";
import * as compare from "./explorer/compare.js";
import * as contributions from "./explorer/contributions.js";
import * as headView from "./explorer/heads.js";
import * as lens from "./explorer/lens.js";
import { matrixView } from "./explorer/matrix.js";
import * as model from "./explorer/model.js";
import * as neurons from "./explorer/neurons.js";
import * as positions from "./explorer/positions.js";
import * as steps from "./explorer/steps.js";

const VIEWS = {
  alignment: alignment.mount, encoder: matrixView("encoder"), decoder: matrixView("decoder"),
  heads: headView.mount, model: model.mount, steps: steps.mount, lens: lens.mount,
  contributions: contributions.mount, neurons: neurons.mount, compare: compare.mount, positions: positions.mount,
  ablation: ablation.mount,
};

const $ = (id) => document.getElementById(id);

/**
 * Wires the explorer to the page. `translator` is heed's translator (for
 * views that ask the engine again); `onError` shows a message; `onChange`
 * is told when what a link would restore changed. Returns { show(sentences,
 * options, more), showStep(index, step), snapshot(), restore(snapshot) }.
 */
export function createExplorer(translator, onError, onChange = () => {}) {
  const state = {
    sentences: [],  // heed.js Sentence objects, with attention
    options: {},    // the translate options that produced them
    index: 0,       // the sentence shown
    view: "alignment",
    focus: {},      // hovered cell or token
    forks: [],      // sentences replaced by forking, latest last
  };
  let selection = null;
  const ctx = {
    translator, onError, render, hover, fork,
    width: (el) => Math.max(280, (el.closest(".view") ?? el.parentElement).clientWidth - 8),
    current: (sel) => sel.sentence === selection?.sentence,
  };
  const views = Object.fromEntries(Object.entries(VIEWS).map(([name, mount]) => [name, mount($(`view-${name}`), ctx)]));

  function select() {
    const sentence = state.sentences[state.index];
    const attention = sentence.attention;
    return {
      sentence, attention, options: state.options, focus: state.focus,
      layer: (kind) => Math.min(Number($("layer").value), layers(attention, kind) - 1),
      head: $("head").value === "mean" ? "mean" : Number($("head").value),
    };
  }

  function render() {
    if (!state.sentences[state.index]) return;
    selection = select();
    Promise.resolve(views[state.view].render(selection)).catch(onError);
  }

  function hover(focus) {
    const same = focus.row === state.focus.row && focus.col === state.focus.col &&
      focus.side === state.focus.side && focus.index === state.focus.index;
    if (same) return;
    state.focus = focus;
    render();
  }

  function fillSelectors() {
    const a = state.sentences[state.index].attention;
    const keepLayer = $("layer").value, keepHead = $("head").value;
    const nl = Math.max(layers(a, "encoder"), layers(a, "decoder"));
    $("layer").replaceChildren(...Array.from({ length: nl }, (_, l) => new Option(`${l + 1} of ${nl}`, l)));
    $("layer").value = keepLayer !== "" && Number(keepLayer) < nl ? keepLayer : String(nl - 1);
    const nh = heads(a);
    $("head").replaceChildren(new Option("all heads (average)", "mean"),
      ...Array.from({ length: nh }, (_, h) => new Option(`head ${h + 1}`, h)));
    $("head").value = keepHead !== "" && (keepHead === "mean" || Number(keepHead) < nh) ? keepHead : "mean";
    $("sentence").replaceChildren(...state.sentences.map((s, i) =>
      new Option(`${i + 1}: ${s.source.length > 50 ? `${s.source.slice(0, 50)}…` : s.source}`, i)));
    $("sentence").value = String(state.index);
    $("sentence-control").hidden = state.sentences.length < 2;
  }

  // Re-decodes the sentence with its first t pieces and then `piece`
  // forced, and shows the result in every view; Back returns.
  function fork(t, piece) {
    const s = state.sentences[state.index];
    return forkWith([...s.targetPieces.slice(0, t), piece]);
  }

  async function forkWith(prefixPieces) {
    const s = state.sentences[state.index];
    try {
      const r = await translator.translate(s.source,
        { ...state.options, attention: true, confidence: true, logitLens: 5, prefixPieces });
      state.forks.push({ index: state.index, sentence: s, step: prefixPieces.length - 1, prefixPieces });
      state.sentences[state.index] = r.sentences[0];
      showFork();
      render();
      onChange();
    } catch (e) {
      onError(e);
    }
  }

  function showFork() {
    const last = state.forks.at(-1);
    $("fork").hidden = !last;
    if (!last) return;
    const shown = state.sentences[state.index];
    markDiff($("fork-text"), shown.text, shown.score, last.sentence.text);
    $("fork-text").prepend(`Forked at step ${last.step + 1}: `);
  }

  $("fork-back").addEventListener("click", () => {
    const last = state.forks.pop();
    if (!last) return;
    state.sentences[last.index] = last.sentence;
    showFork();
    render();
    onChange();
  });

  function openView(name) {
    for (const t of document.querySelectorAll('[role="tab"]')) t.setAttribute("aria-selected", String(t.dataset.view === name));
    for (const v of document.querySelectorAll(".view")) v.hidden = v.id !== `view-${name}`;
    state.view = name;
    state.focus = {};
    render();
    onChange();
  }

  for (const tab of document.querySelectorAll('[role="tab"]')) {
    tab.addEventListener("click", () => openView(tab.dataset.view));
  }
  for (const id of ["layer", "head"]) {
    $(id).addEventListener("input", () => {
      render();
      onChange();
    });
  }
  $("sentence").addEventListener("input", () => {
    state.index = Number($("sentence").value);
    state.focus = {};
    fillSelectors();
    render();
    onChange();
  });
  let resizeTimer = 0;
  window.addEventListener("resize", () => {
    clearTimeout(resizeTimer);
    resizeTimer = setTimeout(render, 150);
  });
  $("export-json").addEventListener("click", () => {
    const json = exportJson(state.sentences[state.index], state.options);
    download(new Blob([json], { type: "application/json" }), "heed-attention.json");
  });
  $("export-png").addEventListener("click", () => {
    viewImage($(`view-${state.view}`), state.view === "model")
      .toBlob((blob) => download(blob, `heed-${state.view}.png`), "image/png");
  });

  return {
    // What a link restores: the view, sentence, layer, head and the prefix
    // the shown sentence was last forked with.
    snapshot() {
      const last = state.forks.at(-1);
      return { view: state.view, sentence: state.index, layer: $("layer").value, head: $("head").value,
               prefix: last?.index === state.index ? last.prefixPieces : undefined };
    },
    // Applies a snapshot (values that do not fit this translation are
    // ignored); a prefix forks the sentence again.
    async restore({ view, sentence, layer, head, prefix }) {
      const index = Number(sentence);
      if (Number.isInteger(index) && index >= 0 && index < state.sentences.length) state.index = index;
      fillSelectors();
      if ([...$("layer").options].some((o) => o.value === layer)) $("layer").value = layer;
      if ([...$("head").options].some((o) => o.value === head)) $("head").value = head;
      if (prefix?.length) await forkWith(prefix);
      openView(view in views ? view : state.view);
    },
    // Opens Step by step at decoding step `step` of sentence `index`.
    showStep(index, step) {
      state.index = index;
      state.focus = {};
      fillSelectors();
      views.steps.select(step);
      openView("steps");
      $("inside").scrollIntoView({ behavior: "smooth", block: "start" });
    },
    // `more`: the same translation with more sentences ready; keep the view.
    show(sentences, options, more = false) {
      state.sentences = sentences;
      state.options = options;
      if (!more) {
        state.index = 0;
        state.focus = {};
        state.forks = [];
        showFork();
        for (const v of Object.values(views)) v.reset?.();
      }
      $("inside").hidden = false;
      fillSelectors();
      render();
    },
  };
}

// One sentence in the schema of docs/attention.md (the CLI's too).
function exportJson(s, options) {
  const a = s.attention;
  const nest = (kind) => a[kind].map((hs) => hs.map((m) => {
    const [rows, cols] = shape(a, kind);
    return Array.from({ length: rows }, (_, i) => Array.from(m.subarray(i * cols, (i + 1) * cols)));
  }));
  return JSON.stringify({
    source: s.source, sourcePieces: s.sourcePieces, targetPieces: s.targetPieces,
    text: s.text, score: s.score, logProb: s.logProb, options,
    decoderInputs: labels(s, "decoder").cols,
    attention: { encoder: nest("encoder"), decoder: nest("decoder"), cross: nest("cross"), shapes: a.shapes },
  });
}

// A view as one canvas (several, as the model view's grid, are composed).
function viewImage(view, compose) {
  const canvases = [...view.querySelectorAll("canvas")].filter((c) => c.width > 0 && !c.classList.contains("legend"));
  if (!compose && canvases.length === 1) return canvases[0];
  const dpr = window.devicePixelRatio || 1;
  const boxes = canvases.map((c) => c.getBoundingClientRect());
  const left = Math.min(...boxes.map((b) => b.left)), top = Math.min(...boxes.map((b) => b.top));
  const out = document.createElement("canvas");
  out.width = Math.ceil((Math.max(...boxes.map((b) => b.right)) - left) * dpr);
  out.height = Math.ceil((Math.max(...boxes.map((b) => b.bottom)) - top) * dpr);
  const g = out.getContext("2d");
  g.fillStyle = "white";
  g.fillRect(0, 0, out.width, out.height);
  canvases.forEach((c, i) => g.drawImage(c, (boxes[i].left - left) * dpr, (boxes[i].top - top) * dpr,
    boxes[i].width * dpr, boxes[i].height * dpr));
  return out;
}

function download(blob, name) {
  const a = document.createElement("a");
  a.href = URL.createObjectURL(blob);
  a.download = name;
  a.click();
  setTimeout(() => URL.revokeObjectURL(a.href), 1000);
}
