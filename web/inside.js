// The attention explorer: seven views of one translated sentence, all read
// from the attention heed.js returns (r.sentences[i].attention).
import { KIND_NAMES, display, heads, labels, layers, pick, shape } from "./views/attention.js";
import { css, drawLegend, headColor, viridisLut } from "./views/color.js";
import { diffWords } from "./views/diff.js";
import { drawHeadView } from "./views/headview.js";
import { drawHeatmap, drawThumbnail } from "./views/heatmap.js";
import { drawContributions, drawShares, overstated } from "./views/contributions.js";
import { drawLens } from "./views/lens.js";
import { probabilityCells } from "./views/table.js";
import { drawEncoding, drawSimilarity, similarity } from "./views/positional.js";

const $ = (id) => document.getElementById(id);

/**
 * Wires the explorer to the page. `translator` is heed's translator (for
 * the positional encoding and head ablation); `onError` shows a message.
 * Returns { show(sentences, options) } to display a new translation.
 */
export function createExplorer(translator, onError) {
  const state = {
    sentences: [],     // heed.js Sentence objects, with attention
    options: {},       // the translate options that produced them
    index: 0,          // the sentence shown
    view: "alignment",
    focus: {},         // hovered cell or token
    shownHeads: null,  // Set of heads drawn in the head view
    forks: [],         // sentences replaced by forking, latest last
    masked: new Set(), // "kind/layer/head" switched off in the ablation view
    layouts: {},       // per canvas id: the last drawing's hit-testing
    pe: null,          // positional encoding for the current source length
  };
  const sentence = () => state.sentences[state.index];
  const attention = () => sentence().attention;
  const layer = (kind) => Math.min(Number($("layer").value), layers(attention(), kind) - 1);
  const head = () => ($("head").value === "mean" ? "mean" : Number($("head").value));
  const width = (el) => Math.max(280, (el.closest(".view") ?? el.parentElement).clientWidth - 8);

  function fillSelectors() {
    const a = attention();
    const keepLayer = $("layer").value, keepHead = $("head").value;
    const nl = Math.max(layers(a, "encoder"), layers(a, "decoder"));
    $("layer").replaceChildren(...Array.from({ length: nl }, (_, l) => new Option(`${l + 1} of ${nl}`, l)));
    $("layer").value = keepLayer !== "" && Number(keepLayer) < nl ? keepLayer : String(nl - 1);
    const nh = heads(a);
    $("head").replaceChildren(new Option("all heads (average)", "mean"),
      ...Array.from({ length: nh }, (_, h) => new Option(`head ${h + 1}`, h)));
    $("head").value = keepHead !== "" && (keepHead === "mean" || Number(keepHead) < nh) ? keepHead : "mean";
    if (!state.shownHeads || [...state.shownHeads].some((h) => h >= nh)) {
      state.shownHeads = new Set(Array.from({ length: nh }, (_, h) => h));
    }
    $("sentence").replaceChildren(...state.sentences.map((s, i) =>
      new Option(`${i + 1}: ${s.source.length > 50 ? `${s.source.slice(0, 50)}…` : s.source}`, i)));
    $("sentence").value = String(state.index);
    $("sentence-control").hidden = state.sentences.length < 2;
  }

  // --- the views -----------------------------------------------------------

  function heatmapView(kind) {
    const canvas = $(`canvas-${kind === "cross" ? "alignment" : kind}`);
    const [rows, cols] = shape(attention(), kind);
    const { rows: rowLabels, cols: colLabels } = labels(sentence(), kind);
    const l = layer(kind), m = pick(attention(), kind, l, head());
    const layout = drawHeatmap(canvas, m, rows, cols, {
      rowLabels, colLabels, causal: kind === "decoder", highlight: state.focus, width: width(canvas),
    });
    state.layouts[canvas.id] = layout;
    drawLegend(canvas.closest(".view").querySelector("canvas.legend"), 0, layout.scale, "attention weight");
    canvas.setAttribute("aria-label", `${KIND_NAMES[kind]}, layer ${l + 1}, ${head() === "mean" ? "average of heads" : `head ${head() + 1}`}`);
    return m;
  }

  // Colours token chips by weights (one per chip), as the heatmap does.
  function paintTokens(container, pieces, weights, focusIndex, onHover) {
    const scale = weights ? Math.max(...weights) || 1 : 1;
    container.replaceChildren(...pieces.map((p, i) => {
      const span = document.createElement("span");
      span.textContent = display(p);
      if (weights) {
        const rgb = viridisLut(weights[i] / scale);
        span.style.background = css(rgb);
        span.style.color = 0.3 * rgb[0] + 0.59 * rgb[1] + 0.11 * rgb[2] > 140 ? "#111" : "#fff";
        span.title = `${(100 * weights[i]).toFixed(1)}%`;
      }
      if (i === focusIndex) span.classList.add("focus");
      if (onHover) {
        span.addEventListener("mouseenter", () => onHover(i));
        span.addEventListener("mouseleave", () => onHover(undefined));
      }
      return span;
    }));
  }

  function alignment() {
    const m = heatmapView("cross");
    const [rows, cols] = shape(attention(), "cross");
    const { row, col } = state.focus;
    const rowWeights = row !== undefined ? Array.from(m.subarray(row * cols, (row + 1) * cols)) : null;
    const colWeights = col !== undefined ? Array.from({ length: rows }, (_, i) => m[i * cols + col]) : null;
    paintTokens($("align-source"), sentence().sourcePieces, rowWeights, col, (j) => hover({ col: j }));
    paintTokens($("align-target"), sentence().targetPieces, colWeights, row, (i) => hover({ row: i }));
  }

  function headView() {
    const kind = $("heads-kind").value, a = attention(), l = layer(kind);
    const [rows, cols] = shape(a, kind);
    const { rows: left, cols: right } = labels(sentence(), kind);
    $("head-toggles").replaceChildren(...Array.from({ length: heads(a) }, (_, h) => {
      const b = document.createElement("button");
      b.type = "button";
      b.textContent = `head ${h + 1}`;
      b.style.background = headColor(h);
      b.setAttribute("aria-pressed", String(state.shownHeads.has(h)));
      b.addEventListener("click", () => {
        if (state.shownHeads.has(h)) state.shownHeads.delete(h);
        else state.shownHeads.add(h);
        render();
      });
      return b;
    }));
    const canvas = $("canvas-heads");
    state.layouts[canvas.id] = drawHeadView(canvas, a[kind][l], rows, cols, left, right,
      [...state.shownHeads].sort((x, y) => x - y), state.focus, width(canvas));
  }

  function modelView() {
    const kind = $("model-kind").value, a = attention();
    const [rows, cols] = shape(a, kind), nl = layers(a, kind), nh = heads(a);
    const grid = $("model-grid");
    const size = Math.max(36, Math.min(110, Math.floor((width(grid) - 40) / nh) - 6));
    grid.style.gridTemplateColumns = `auto repeat(${nh}, ${size}px)`;
    const cells = [document.createElement("span")];
    for (let h = 0; h < nh; ++h) cells.push(Object.assign(document.createElement("span"), { className: "label", textContent: `head ${h + 1}` }));
    for (let l = 0; l < nl; ++l) {
      cells.push(Object.assign(document.createElement("span"), { className: "label", textContent: `layer ${l + 1}` }));
      for (let h = 0; h < nh; ++h) {
        const c = document.createElement("canvas");
        c.className = "thumb";
        c.dataset.layer = l;
        c.dataset.head = h;
        c.title = `${KIND_NAMES[kind]}, layer ${l + 1}, head ${h + 1}: click to enlarge`;
        drawThumbnail(c, a[kind][l][h], rows, cols, size, kind === "decoder");
        c.addEventListener("click", () => zoom(kind, l, h));
        cells.push(c);
      }
    }
    grid.replaceChildren(...cells);
  }

  function zoom(kind, l, h) {
    const [rows, cols] = shape(attention(), kind);
    const { rows: rowLabels, cols: colLabels } = labels(sentence(), kind);
    $("zoom-title").textContent = `${KIND_NAMES[kind]}, layer ${l + 1}, head ${h + 1}`;
    $("zoom").showModal();
    const canvas = $("canvas-zoom");
    drawHeatmap(canvas, attention()[kind][l][h], rows, cols,
      { rowLabels, colLabels, causal: kind === "decoder", width: Math.min(900, window.innerWidth - 80) });
  }

  function steps() {
    const s = sentence(), a = attention();
    const T = s.targetPieces.length;
    const slider = $("step");
    slider.max = String(T - 1);
    const t = Math.min(Number(slider.value), T - 1);
    $("step-label").textContent = `${t + 1} of ${T}`;
    const written = s.targetPieces.slice(0, t + 1);
    paintTokens($("step-written"), written, null, undefined);
    $("step-written").lastElementChild?.classList.add("next");
    const candidates = s.alternatives?.[t] ?? [];
    $("step-candidates").replaceChildren(...candidates.map((c) => {
      const tr = document.createElement("tr");
      const chosen = c.piece === s.targetPieces[t];
      if (chosen) tr.className = "chosen";
      const name = document.createElement("td");
      if (chosen || c.piece === "</s>") {
        name.textContent = display(c.piece);
      } else {
        const take = document.createElement("button");
        take.type = "button";
        take.className = "fork";
        take.textContent = display(c.piece);
        take.title = `Take "${display(c.piece)}" at step ${t + 1} and decode the rest`;
        take.addEventListener("click", () => fork(t, c.piece));
        name.append(take);
      }
      tr.append(name, ...probabilityCells(c.probability));
      return tr;
    }));
    const [, cols] = shape(a, "cross");
    const m = pick(a, "cross", layer("cross"), head());
    const row = Array.from(m.subarray(t * cols, (t + 1) * cols));
    paintTokens($("step-source"), s.sourcePieces, row, undefined);
    const canvas = $("canvas-steps");
    drawHeatmap(canvas, Float32Array.from(row), 1, cols, {
      rowLabels: [s.targetPieces[t]], colLabels: s.sourcePieces, width: width(canvas) * 0.6,
    });
  }

  // Re-decodes the sentence with its first t pieces and then `piece`
  // forced, and shows the result in every view; Back returns.
  async function fork(t, piece) {
    const s = sentence();
    const prefixPieces = [...s.targetPieces.slice(0, t), piece];
    try {
      const r = await translator.translate(s.source,
        { ...state.options, attention: true, confidence: true, logitLens: 5, prefixPieces });
      state.forks.push({ index: state.index, sentence: s, step: t });
      state.sentences[state.index] = r.sentences[0];
      showFork();
      render();
    } catch (e) {
      onError(e);
    }
  }

  function showFork() {
    const last = state.forks.at(-1);
    $("fork").hidden = !last;
    if (!last) return;
    const label = $("fork-text");
    markDiff(label, sentence().text, sentence().score, last.sentence.text);
    label.prepend(`Forked at step ${last.step + 1}: `);
  }

  $("fork-back").addEventListener("click", () => {
    const last = state.forks.pop();
    if (!last) return;
    state.sentences[last.index] = last.sentence;
    showFork();
    render();
  });

  // Contributions cost an extra pass: the first time the view needs them,
  // the sentence is translated again with them, forced through the same
  // pieces; the view draws from that run throughout.
  async function contributions() {
    const shown = sentence();
    if (!shown.explained) {
      const r = await translator.translate(shown.source, {
        ...state.options, attention: true, contributions: true,
        prefixPieces: shown.targetPieces.filter((p) => p !== "</s>"),
      });
      shown.explained = r.sentences[0];
      if (sentence() !== shown) return;
    }
    const s = shown.explained;
    const kind = $("contrib-kind").value;
    const l = layer(kind), h = head();
    const w = Math.max(240, ($("view-contributions").clientWidth - 48) / (window.innerWidth > 900 ? 3 : 1));
    const maps = drawContributions({ raw: $("canvas-contrib-raw"), weighted: $("canvas-contrib-weighted"),
      rollout: $("canvas-contrib-rollout") }, s, kind, l, h, w);
    drawShares($("contrib-shares"), s);
    const [rows, cols] = shape(s.attention, kind);
    const o = overstated(maps.raw, maps.weighted, rows, cols);
    const piece = display(labels(s, kind).cols[o.column]);
    $("contrib-note").textContent = o.raw - o.weighted > 0.02
      ? `Here "${piece}" gets ${(100 * o.raw).toFixed(0)}% of the attention but passes on only ` +
        `${(100 * o.weighted).toFixed(0)}% of what this ${h === "mean" ? "layer" : "head"} adds.`
      : "Here raw attention and what the tokens add agree closely.";
  }

  async function positions() {
    const n = Math.max(2, sentence().sourcePieces.length);
    if (state.pe?.positions !== n) state.pe = await translator.positionalEncoding(n);
    const pe = state.pe;
    const names = sentence().sourcePieces.map(display);
    const w = Math.max(280, ($("view-positions").clientWidth - 24) / (window.innerWidth > 720 ? 2 : 1));
    drawEncoding($("canvas-positions"), pe, names, w);
    const [lo, hi] = drawSimilarity($("canvas-similarity"), similarity(pe), n, names, w);
    const [peLegend, simLegend] = $("view-positions").querySelectorAll("canvas.legend");
    drawLegend(peLegend, -1, 1, "encoding value");
    drawLegend(simLegend, lo, hi, "cosine similarity");
  }

  function ablationGrid() {
    const a = attention(), nh = heads(a);
    const groups = ["encoder", "decoder", "cross"].map((kind) => {
      const fs = document.createElement("fieldset");
      const legend = document.createElement("legend");
      legend.textContent = KIND_NAMES[kind];
      fs.append(legend);
      for (let l = 0; l < layers(a, kind); ++l) {
        const row = document.createElement("div");
        row.className = "row";
        const name = document.createElement("span");
        name.textContent = `layer ${l + 1}`;
        row.append(name);
        const boxes = [];
        for (let h = 0; h < nh; ++h) {
          const box = document.createElement("input");
          box.type = "checkbox";
          box.dataset.key = `${kind}/${l}/${h}`;
          box.checked = state.masked.has(box.dataset.key);
          box.title = `switch off ${KIND_NAMES[kind]} layer ${l + 1} head ${h + 1}`;
          box.addEventListener("change", () => {
            if (box.checked) state.masked.add(box.dataset.key);
            else state.masked.delete(box.dataset.key);
          });
          boxes.push(box);
        }
        const all = document.createElement("button");
        all.type = "button";
        all.textContent = "all";
        all.title = `switch off every head of ${KIND_NAMES[kind]} layer ${l + 1}`;
        all.dataset.layerKey = `${kind}/${l}`;
        all.addEventListener("click", () => {
          const on = !boxes.every((b) => b.checked);
          for (const b of boxes) {
            b.checked = on;
            b.dispatchEvent(new Event("change"));
          }
        });
        row.append(...boxes, all);
        fs.append(row);
      }
      return fs;
    });
    $("ablation-grid").replaceChildren(...groups);
    markDiff($("ablation-original"), sentence().text, sentence().score, null);
  }

  function markDiff(el, text, score, other) {
    const words = other === null ? text.split(/\s+/).filter(Boolean).map((word) => ({ word, changed: false }))
      : diffWords(other, text)[1];
    el.replaceChildren(...words.flatMap(({ word, changed }, i) => {
      const node = changed ? Object.assign(document.createElement("mark"), { textContent: word })
        : document.createTextNode(word);
      return i ? [document.createTextNode(" "), node] : [node];
    }), Object.assign(document.createElement("small"), { className: "muted", textContent: `  (score ${score.toFixed(3)})` }));
  }

  async function ablate() {
    const s = sentence();
    const maskHeads = [...state.masked].map((k) => {
      const [kind, l, h] = k.split("/");
      return { kind, layer: Number(l), head: Number(h) };
    });
    $("ablate").disabled = true;
    $("ablation-result").textContent = "translating…";
    try {
      const r = await translator.translate(s.source, { ...state.options, attention: true, maskHeads });
      const out = r.sentences[0];
      markDiff($("ablation-result"), out.text, out.score, s.text);
      $("ablation-result").dataset.text = out.text;
      $("ablation-result").dataset.score = String(out.score);
      const [rows, cols] = [out.targetPieces.length, out.sourcePieces.length];
      const last = out.attention.cross.length - 1;
      drawHeatmap($("canvas-ablation"), pick(out.attention, "cross", last, "mean"), rows, cols, {
        rowLabels: out.targetPieces, colLabels: out.sourcePieces, width: width($("canvas-ablation")),
      });
    } catch (e) {
      $("ablation-result").textContent = "";
      onError(e);
    } finally {
      $("ablate").disabled = false;
    }
  }

  // --- rendering, hovering, export ----------------------------------------

  const views = {
    alignment, encoder: () => heatmapView("encoder"), decoder: () => heatmapView("decoder"),
    heads: headView, model: modelView, steps, positions, ablation: ablationGrid,
    lens: () => drawLens($("lens-grid"), $("lens-detail"), sentence()),
    contributions,
  };

  function render() {
    if (!sentence()) return;
    Promise.resolve(views[state.view]()).catch(onError);
  }

  function hover(focus) {
    const same = focus.row === state.focus.row && focus.col === state.focus.col &&
      focus.side === state.focus.side && focus.index === state.focus.index;
    if (same) return;
    state.focus = focus;
    render();
  }

  for (const id of ["canvas-alignment", "canvas-encoder", "canvas-decoder"]) {
    $(id).addEventListener("mousemove", (e) => hover(state.layouts[id]?.cellAt(e.offsetX, e.offsetY) ?? {}));
    $(id).addEventListener("mouseleave", () => hover({}));
  }
  $("canvas-heads").addEventListener("mousemove", (e) =>
    hover(state.layouts["canvas-heads"]?.tokenAt(e.offsetX, e.offsetY) ?? {}));
  $("canvas-heads").addEventListener("mouseleave", () => hover({}));

  for (const tab of document.querySelectorAll('[role="tab"]')) {
    tab.addEventListener("click", () => {
      for (const t of document.querySelectorAll('[role="tab"]')) t.setAttribute("aria-selected", String(t === tab));
      for (const v of document.querySelectorAll(".view")) v.hidden = v.id !== `view-${tab.dataset.view}`;
      state.view = tab.dataset.view;
      state.focus = {};
      render();
    });
  }
  for (const id of ["layer", "head", "heads-kind", "model-kind", "step", "contrib-kind"]) {
    $(id).addEventListener("input", render);
  }
  $("sentence").addEventListener("input", () => {
    state.index = Number($("sentence").value);
    state.focus = {};
    fillSelectors();
    render();
  });
  $("ablate").addEventListener("click", ablate);
  $("ablation-clear").addEventListener("click", () => {
    state.masked.clear();
    render();
  });
  let resizeTimer = 0;
  window.addEventListener("resize", () => {
    clearTimeout(resizeTimer);
    resizeTimer = setTimeout(render, 150);
  });

  $("export-json").addEventListener("click", () => {
    const s = sentence(), a = s.attention;
    const nest = (kind) => a[kind].map((hs) => hs.map((m) => {
      const [rows, cols] = shape(a, kind);
      return Array.from({ length: rows }, (_, i) => Array.from(m.subarray(i * cols, (i + 1) * cols)));
    }));
    // One sentence in the schema of docs/attention.md (the CLI's too).
    const json = JSON.stringify({
      source: s.source, sourcePieces: s.sourcePieces, targetPieces: s.targetPieces,
      text: s.text, score: s.score, logProb: s.logProb, options: state.options,
      decoderInputs: labels(s, "decoder").cols,
      attention: { encoder: nest("encoder"), decoder: nest("decoder"), cross: nest("cross"), shapes: a.shapes },
    });
    download(new Blob([json], { type: "application/json" }), "heed-attention.json");
  });
  $("export-png").addEventListener("click", () => {
    viewImage().toBlob((blob) => download(blob, `heed-${state.view}.png`), "image/png");
  });

  // The current view as one canvas (the model view's grid is composed).
  function viewImage() {
    const view = $(`view-${state.view}`);
    const canvases = [...view.querySelectorAll("canvas")].filter((c) => c.width > 0 && !c.classList.contains("legend"));
    if (state.view !== "model" && canvases.length === 1) return canvases[0];
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

  return {
    // `more`: the same translation with more sentences ready; keep the view.
    // Opens Step by step at decoding step `step` of sentence `index`.
    showStep(index, step) {
      state.index = index;
      state.focus = {};
      fillSelectors();
      $("step").value = String(step);
      document.querySelector('[data-view="steps"]').click();
      $("inside").scrollIntoView({ behavior: "smooth", block: "start" });
    },
    show(sentences, options, more = false) {
      state.sentences = sentences;
      state.options = options;
      if (!more) {
        state.index = 0;
        state.focus = {};
        state.forks = [];
        showFork();
        $("step").value = "0";
        $("ablation-result").textContent = "";
        $("canvas-ablation").width = 0;
      }
      $("inside").hidden = false;
      fillSelectors();
      render();
    },
  };
}

function download(blob, name) {
  const a = document.createElement("a");
  a.href = URL.createObjectURL(blob);
  a.download = name;
  a.click();
  setTimeout(() => URL.revokeObjectURL(a.href), 1000);
}
