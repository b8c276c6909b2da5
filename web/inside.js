// The attention explorer: one translated sentence seen through fourteen views,
// all read from what heed.js returns (r.sentences[i]). This module is the
// router: the shared selection (sentence, layer, head, hovered cell), the
// tabs, forking the translation at a step (export.js saves what is shown).
// Each view is a module of explorer/ with one interface:
//
//   mount(root, ctx) -> { render(selection), reset?(), select?(step),
//                         preset?(what) }
//
// root is the view's <article>; ctx = { translator, onError, render(),
// hover(focus), fork(step, piece), width(element), current(selection):
// whether its sentence is still the one shown, open(view, { layer?, head?,
// ...preset }): that view at that layer and head, told the rest };
// a selection = { sentence, attention, options, layer(kind), head, focus }.
import { heads, layers } from "./views/attention.js";
import { markDiff } from "./views/diff.js";
import * as ablation from "./explorer/ablation.js";
import * as alignment from "./explorer/alignment.js";
import * as compare from "./explorer/compare.js";
import * as contributions from "./explorer/contributions.js";
import { wireExport } from "./export.js";
import * as headView from "./explorer/heads.js";
import * as importance from "./explorer/importance.js";
import * as lens from "./explorer/lens.js";
import { matrixView } from "./explorer/matrix.js";
import * as model from "./explorer/model.js";
import * as neurons from "./explorer/neurons.js";
import * as positions from "./explorer/positions.js";
import * as roles from "./explorer/roles.js";
import * as steps from "./explorer/steps.js";

const VIEWS = {
  alignment: alignment.mount, encoder: matrixView("encoder"), decoder: matrixView("decoder"),
  heads: headView.mount, model: model.mount, steps: steps.mount, lens: lens.mount,
  contributions: contributions.mount, neurons: neurons.mount, compare: compare.mount, positions: positions.mount,
  ablation: ablation.mount, roles: roles.mount, importance: importance.mount,
};

const $ = (id) => document.getElementById(id);

// The explorer's state and what changes it; createExplorer wires it to the
// page and hands out its public face.
class Explorer {
  constructor(translator, onError, onChange) {
    this.sentences = [];  // heed.js Sentence objects, with attention
    this.options = {};    // the translate options that produced them
    this.index = 0;       // the sentence shown
    this.view = "alignment";
    this.focus = {};      // hovered cell or token
    this.forks = [];      // sentences replaced by forking, latest last
    this.selection = null;
    Object.assign(this, { translator, onError, onChange });
    this.shipped = true;  // the page's own model, which models/eval/ measured
    const x = this;
    const ctx = {
      get translator() { return x.translator; },
      shipped: () => x.shipped,
      onError,
      render: () => this.render(), hover: (f) => this.hover(f), fork: (t, p) => this.fork(t, p),
      width: (el) => Math.max(280, (el.closest(".view") ?? el.parentElement).clientWidth - 8),
      current: (sel) => sel.sentence === this.selection?.sentence,
      open: (view, { layer, head, ...rest }) => {
        if (layer !== undefined) $("layer").value = String(layer);
        if (head !== undefined) $("head").value = String(head);
        this.views[view].preset?.(rest);
        this.openView(view);
      },
    };
    this.views = Object.fromEntries(Object.entries(VIEWS).map(([name, mount]) => [name, mount($(`view-${name}`), ctx)]));
  }

  select() {
    const sentence = this.sentences[this.index];
    const attention = sentence.attention;
    return {
      sentence, attention, options: this.options, focus: this.focus,
      layer: (kind) => Math.min(Number($("layer").value), layers(attention, kind) - 1),
      head: $("head").value === "mean" ? "mean" : Number($("head").value),
    };
  }

  render() {
    if (!this.sentences[this.index]) return;
    this.selection = this.select();
    Promise.resolve(this.views[this.view].render(this.selection)).catch(this.onError);
  }

  // What the page's controls change: re-render and tell the link.
  changed() {
    this.render();
    this.onChange();
  }

  hover(focus) {
    const f = this.focus;
    if (focus.row === f.row && focus.col === f.col && focus.side === f.side && focus.index === f.index) return;
    this.focus = focus;
    this.render();
  }

  fillSelectors() {
    const a = this.sentences[this.index].attention;
    const keepLayer = $("layer").value, keepHead = $("head").value;
    const nl = Math.max(layers(a, "encoder"), layers(a, "decoder"));
    $("layer").replaceChildren(...Array.from({ length: nl }, (_, l) => new Option(`${l + 1} of ${nl}`, l)));
    $("layer").value = keepLayer !== "" && Number(keepLayer) < nl ? keepLayer : String(nl - 1);
    const nh = heads(a);
    $("head").replaceChildren(new Option("all heads (average)", "mean"),
      ...Array.from({ length: nh }, (_, h) => new Option(`head ${h + 1}`, h)));
    $("head").value = keepHead !== "" && (keepHead === "mean" || Number(keepHead) < nh) ? keepHead : "mean";
    $("sentence").replaceChildren(...this.sentences.map((s, i) =>
      new Option(`${i + 1}: ${s.source.length > 50 ? `${s.source.slice(0, 50)}…` : s.source}`, i)));
    $("sentence").value = String(this.index);
    $("sentence-control").hidden = this.sentences.length < 2;
  }

  // Re-decodes the sentence with its first t pieces and then `piece`
  // forced, and shows the result in every view; Back returns.
  fork(t, piece) {
    const s = this.sentences[this.index];
    return this.forkWith([...s.targetPieces.slice(0, t), piece]);
  }

  async forkWith(prefixPieces) {
    const s = this.sentences[this.index];
    try {
      const r = await this.translator.translate(s.source,
        { ...this.options, attention: true, confidence: true, logitLens: 5, prefixPieces });
      this.forks.push({ index: this.index, sentence: s, step: prefixPieces.length - 1, prefixPieces });
      this.sentences[this.index] = r.sentences[0];
      this.showFork();
      this.changed();
    } catch (e) {
      this.onError(e);
    }
  }

  back() {
    const last = this.forks.pop();
    if (!last) return;
    this.sentences[last.index] = last.sentence;
    this.showFork();
    this.changed();
  }

  showFork() {
    const last = this.forks.at(-1);
    $("fork").hidden = !last;
    if (!last) return;
    const shown = this.sentences[this.index];
    markDiff($("fork-text"), shown.text, shown.score, last.sentence.text);
    $("fork-text").prepend(`Forked at step ${last.step + 1}: `);
  }

  openView(name) {
    for (const t of document.querySelectorAll('[role="tab"]')) t.setAttribute("aria-selected", String(t.dataset.view === name));
    for (const v of document.querySelectorAll(".view")) v.hidden = v.id !== `view-${name}`;
    this.view = name;
    this.focus = {};
    this.changed();
  }

  openSentence(index) {
    this.index = index;
    this.focus = {};
    this.fillSelectors();
  }
}

// The page's controls: tabs, layer, head, sentence, Back, resizing, export.
function wireControls(x) {
  for (const tab of document.querySelectorAll('[role="tab"]')) {
    tab.addEventListener("click", () => x.openView(tab.dataset.view));
  }
  for (const id of ["layer", "head"]) $(id).addEventListener("input", () => x.changed());
  $("sentence").addEventListener("input", () => {
    x.openSentence(Number($("sentence").value));
    x.changed();
  });
  $("fork-back").addEventListener("click", () => x.back());
  let resizeTimer = 0;
  window.addEventListener("resize", () => {
    clearTimeout(resizeTimer);
    resizeTimer = setTimeout(() => x.render(), 150);
  });
  wireExport($, () => {
    // A forked sentence is reproduced with its forced prefix.
    const fork = x.forks.findLast((f) => f.index === x.index);
    const options = { ...x.options, logitLens: 5, ...(fork && { prefixPieces: fork.prefixPieces }) };
    return { translator: x.translator, source: x.sentences[x.index].source, options, view: x.view,
             root: $(`view-${x.view}`) };
  }, x.onError);
}

/**
 * Wires the explorer to the page. `translator` is heed's translator (for
 * views that ask the engine again); `onError` shows a message; `onChange`
 * is told when what a link would restore changed. Returns { show(sentences,
 * options, more), showStep(index, step), snapshot(), restore(snapshot) }.
 */
export function createExplorer(translator, onError, onChange = () => {}) {
  const x = new Explorer(translator, onError, onChange);
  wireControls(x);
  return {
    // What a link restores: the view, sentence, layer, head and the prefix
    // the shown sentence was last forked with.
    snapshot() {
      const last = x.forks.at(-1);
      return { view: x.view, sentence: x.index, layer: $("layer").value, head: $("head").value,
               prefix: last?.index === x.index ? last.prefixPieces : undefined };
    },
    // Applies a snapshot (values that do not fit this translation are
    // ignored); a prefix forks the sentence again.
    async restore({ view, sentence, layer, head, prefix }) {
      const index = Number(sentence);
      if (Number.isInteger(index) && index >= 0 && index < x.sentences.length) x.index = index;
      x.fillSelectors();
      if ([...$("layer").options].some((o) => o.value === layer)) $("layer").value = layer;
      if ([...$("head").options].some((o) => o.value === head)) $("head").value = head;
      if (prefix?.length) await x.forkWith(prefix);
      x.openView(Object.hasOwn(x.views, view) ? view : x.view);
    },
    // Opens Step by step at decoding step `step` of sentence `index`.
    showStep(index, step) {
      x.openSentence(index);
      x.views.steps.select(step);
      x.openView("steps");
      $("inside").scrollIntoView({ behavior: "smooth", block: "start" });
    },
    // The sentence shown and the options that produced it.
    current() {
      return { sentence: x.sentences[x.index], options: x.options };
    },
    // Another model (`shipped`: the page's own): the next show() starts
    // afresh with it.
    useTranslator(translator, shipped) {
      x.translator = translator;
      x.shipped = shipped;
      x.sentences = [];
      x.forks = [];
      x.index = 0;
      x.focus = {};
      x.selection = null;
      // Views keep what they computed for a sentence (the positional
      // encoding, forced runs): none of it holds for another model.
      for (const v of Object.values(x.views)) v.reset?.();
      $("inside").hidden = true;
    },
    // `more`: the same translation with more sentences ready; keep the view.
    show(sentences, options, more = false) {
      if (!sentences.length) {  // nothing the model could read
        $("inside").hidden = true;
        return;
      }
      x.sentences = sentences;
      x.options = options;
      if (!more) {
        x.index = 0;
        x.focus = {};
        x.forks = [];
        x.showFork();
        for (const v of Object.values(x.views)) v.reset?.();
      }
      $("inside").hidden = false;
      x.fillSelectors();
      x.render();
    },
  };
}
