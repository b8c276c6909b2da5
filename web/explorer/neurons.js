// Neurons tab: one head's query and key vectors for the chosen word, asked
// of the engine for this sentence, kind, layer and head, drawn after
// bertviz's neuron view: each key token's key vector, the elementwise
// product q ∘ k, its sum scaled to the score q · k / √d, and the softmax
// weight the scores give. Vectors are drawn element by element on a
// diverging scale (orange > 0, blue < 0).
import { KIND_NAMES, display, labels } from "../views/attention.js";
import { prepare } from "../views/canvas.js";
import { css, diverging } from "../views/color.js";

const FONT = "12px system-ui, sans-serif";

/**
 * Scores q · k_j / √d and softmax weights for the keys the query may see
 * (the first `visible`; the others get score NaN and weight 0).
 */
function neuronScores(query, keys, visible = keys.length) {
  const d = query.length;
  const scores = keys.map((k, j) => {
    if (j >= visible) return NaN;
    let s = 0;
    for (let e = 0; e < d; ++e) s += query[e] * k[e];
    return s / Math.sqrt(d);
  });
  const top = Math.max(...scores.filter(Number.isFinite));
  const exps = scores.map((s) => (Number.isFinite(s) ? Math.exp(s - top) : 0));
  const z = exps.reduce((a, b) => a + b, 0);
  return { scores, weights: exps.map((e) => e / z) };
}

function largest(rows) {
  let m = 0;
  for (const r of rows) for (const v of r) m = Math.max(m, Math.abs(v));
  return m || 1;
}

/**
 * Draws the view into `canvas` at most `width` CSS pixels wide: options
 * { query (Float32Array d), keys ([Float32Array d]), queryLabel,
 * keyLabels, visible (keys the query may see) }. Returns the scores and
 * weights drawn.
 */
function drawNeurons(canvas, { query, keys, queryLabel, keyLabels, visible = keys.length, width = 640 }) {
  const d = query.length;
  const products = keys.map((k) => k.map((v, e) => v * query[e]));
  const { scores, weights } = neuronScores(query, keys, visible);
  const g = canvas.getContext("2d");
  g.font = FONT;
  const names = [...keyLabels, `q: ${queryLabel}`];
  const labelW = Math.min(120, 8 + Math.max(...names.map((l) => g.measureText(display(l)).width)));
  const barW = 90, gap = 10, numW = 44;
  const cell = Math.max(2, Math.min(10, Math.floor((width - labelW - 2 * gap - numW - barW - 8) / (2 * d))));
  const row = Math.max(14, cell + 6);
  const kx = labelW, px = kx + d * cell + gap, sx = px + d * cell + gap, bx = sx + numW;
  const top = 2 * row + 6;
  const w = bx + barW + 4, h = top + keys.length * row + 4;
  const g2 = prepare(canvas, w, h);
  g2.font = FONT;
  g2.textBaseline = "middle";
  const ink = getComputedStyle(canvas).color || "#222";
  const vecScale = largest([query, ...keys]), prodScale = largest(products);
  const strip = (vec, x, y, scale, seen = true) => {
    for (let e = 0; e < d; ++e) {
      g2.fillStyle = seen ? css(diverging(vec[e] / scale)) : "#ddd";
      g2.fillRect(x + e * cell, y, cell, row - 4);
    }
  };
  // Headers, then the query's own vector above the keys.
  g2.fillStyle = ink;
  g2.fillText("key k", kx, row / 2);
  g2.fillText("q ∘ k", px, row / 2);
  g2.fillText("q·k/√d", sx, row / 2);
  g2.fillText("weight", bx, row / 2);
  g2.textAlign = "right";
  g2.fillText(`q: ${display(queryLabel)}`, kx - 4, row + row / 2);
  g2.textAlign = "left";
  strip(query, kx, row + 2, vecScale);
  keys.forEach((k, j) => {
    const y = top + j * row;
    const seen = j < visible;
    g2.fillStyle = ink;
    g2.textAlign = "right";
    g2.fillText(display(keyLabels[j]), kx - 4, y + row / 2 - 2);
    strip(k, kx, y, vecScale, seen);
    strip(products[j], px, y, prodScale, seen);
    g2.fillStyle = ink;
    g2.fillText(seen ? scores[j].toFixed(1) : "—", bx - 6, y + row / 2 - 2);
    g2.textAlign = "left";
    g2.fillStyle = "#4e79a7";
    g2.fillRect(bx, y, Math.max(seen ? 1 : 0, weights[j] * barW), row - 4);
  });
  canvas.dataset.weights = JSON.stringify(weights.map((x) => Number(x.toFixed(6))));
  return { scores, weights };
}

export function mount(root, ctx) {
  const kindSelect = root.querySelector("#neuron-kind");
  const querySelect = root.querySelector("#neuron-query");
  const note = root.querySelector("#neuron-note");
  kindSelect.addEventListener("input", () => {
    querySelect.value = "";
    ctx.render();
  });
  querySelect.addEventListener("input", ctx.render);

  // One extra run per (kind, layer, head), forced through the shown pieces.
  async function vectors(sel, kind, layer, head) {
    const shown = sel.sentence;
    shown.neurons ??= new Map();
    const key = `${kind}/${layer}/${head}`;
    if (!shown.neurons.has(key)) {
      const r = await ctx.translator.translate(shown.source, {
        ...sel.options, attention: true, queryKey: { kind, layer, head },
        prefixPieces: shown.targetPieces.filter((p) => p !== "</s>"),
      });
      shown.neurons.set(key, r.sentences[0].attention.queryKey);
    }
    return shown.neurons.get(key);
  }

  function fillQueries(rows) {
    const keep = querySelect.value;
    querySelect.replaceChildren(...rows.map((p, i) => new Option(`${i + 1}: ${p.replace(/\u2581/g, "")}`, i)));
    querySelect.value = keep !== "" && Number(keep) < rows.length ? keep : "0";
  }

  return {
    async render(sel) {
      const kind = kindSelect.value;
      const layer = sel.layer(kind), head = sel.head === "mean" ? 0 : sel.head;
      const { rows, cols } = labels(sel.sentence, kind);
      fillQueries(rows);
      const qk = await vectors(sel, kind, layer, head);
      if (!ctx.current(sel)) return;
      const i = Number(querySelect.value);
      const drawn = drawNeurons(root.querySelector("#canvas-neurons"), {
        query: qk.queries[i], keys: qk.keys, queryLabel: rows[i], keyLabels: cols,
        visible: kind === "decoder" ? i + 1 : cols.length, width: ctx.width(root),
      });
      const best = drawn.weights.indexOf(Math.max(...drawn.weights));
      note.textContent = `${KIND_NAMES[kind]}, layer ${layer + 1}, head ${head + 1}` +
        (sel.head === "mean" ? " (the view is of one head: choose another above)" : "") +
        `: "${rows[i].replace(/\u2581/g, "")}" looks most at "${cols[best].replace(/\u2581/g, "")}" ` +
        `(${(100 * drawn.weights[best]).toFixed(0)}%).`;
    },
  };
}
