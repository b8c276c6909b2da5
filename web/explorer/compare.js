// Compare: the same layer and head (attention weights, or what tokens add)
// for the sentence shown and another one, side by side, and their
// difference where the two maps have the same shape. "I sat on the bank of
// the river." beside "I took money from the bank." shows how the context
// changes what one word looks at.
import { KIND_NAMES, labels, layers, pick, shape } from "../views/attention.js";
import { drawHeatmap } from "../views/heatmap.js";

// One map of sentence s (weights or contributions, `maps`) at layer l.
function draw(canvas, s, maps, kind, l, head, width) {
  const [rows, cols] = shape(s.attention, kind);
  const { rows: rowLabels, cols: colLabels } = labels(s, kind);
  const m = pick(maps, kind, Math.min(l, layers(s.attention, kind) - 1), head);
  drawHeatmap(canvas, m, rows, cols, { rowLabels, colLabels, causal: kind === "decoder", width });
  return { m, rows, cols, rowLabels, colLabels };
}

// |left − right| drawn on `canvas`; says where the largest change is.
function drawDifference(canvas, left, right, kind, width) {
  const diff = left.m.map((v, i) => Math.abs(v - right.m[i]));
  drawHeatmap(canvas, diff, left.rows, left.cols,
    { rowLabels: left.rowLabels, colLabels: left.colLabels, causal: kind === "decoder", width });
  let at = 0;
  diff.forEach((v, i) => { if (v > diff[at]) at = i; });
  const r = Math.floor(at / left.cols), c = at % left.cols;
  return `The largest change: row "${left.rowLabels[r]}" / "${right.rowLabels[r]}", ` +
    `column "${left.colLabels[c]}" / "${right.colLabels[c]}", ${(100 * left.m[at]).toFixed(0)}% → ` +
    `${(100 * right.m[at]).toFixed(0)}%.`;
}

export function mount(root, ctx) {
  const q = (id) => root.querySelector(`#${id}`);
  const runs = new Map();  // "options + text" -> the other sentence's result
  q("compare-kind").addEventListener("input", ctx.render);
  q("compare-measure").addEventListener("input", ctx.render);
  q("compare-go").addEventListener("click", ctx.render);
  q("compare-text").addEventListener("keydown", (e) => {
    if (e.key === "Enter") ctx.render();
  });

  // The other text, translated once with attention and contributions.
  async function other(sel, text) {
    const key = JSON.stringify([sel.options, text]);
    if (!runs.has(key)) {
      const r = await ctx.translator.translate(text, { ...sel.options, attention: true, contributions: true });
      runs.set(key, r.sentences[0]);
    }
    return runs.get(key);
  }

  // This sentence with contributions, forced through its own pieces (as
  // the contributions view does), when they are asked for.
  async function explained(s, options) {
    if (!s.explained) {
      const r = await ctx.translator.translate(s.source, {
        ...options, attention: true, contributions: true,
        prefixPieces: s.targetPieces.filter((p) => p !== "</s>"),
      });
      s.explained = r.sentences[0];
    }
    return s.explained;
  }

  return {
    async render(sel) {
      const text = q("compare-text").value.trim();
      const kind = q("compare-kind").value;
      const weighted = q("compare-measure").value === "contributions";
      const note = q("compare-note");
      for (const id of ["canvas-compare-a", "canvas-compare-b", "canvas-compare-diff"]) q(id).width = 0;
      const diffFigure = q("canvas-compare-diff").closest("figure");
      diffFigure.hidden = true;
      if (!text) {
        note.textContent = "Type another sentence above and press Compare.";
        return;
      }
      note.textContent = "translating…";
      let a, b;
      try {
        b = await other(sel, text);
        a = weighted ? await explained(sel.sentence, sel.options) : sel.sentence;
      } catch (e) {
        note.textContent = "The other sentence could not be translated.";
        throw e;
      }
      if (!ctx.current(sel)) return;
      if (!b) {
        note.textContent = "The other text has no sentence the model can read.";
        return;
      }
      const w = Math.max(240, (root.clientWidth - 48) / (window.innerWidth > 900 ? 3 : 1));
      const l = sel.layer(kind), head = sel.head;
      const mapsOf = (s) => (weighted ? s.attention.contributions : s.attention);
      const left = draw(q("canvas-compare-a"), a, mapsOf(a), kind, l, head, w);
      const right = draw(q("canvas-compare-b"), b, mapsOf(b), kind, l, head, w);
      const what = `${KIND_NAMES[kind]}, layer ${l + 1}, ${head === "mean" ? "average of heads" : `head ${head + 1}`}`;
      if (left.rows !== right.rows || left.cols !== right.cols) {
        note.textContent = `${what}. The two maps differ in shape (${left.rows}×${left.cols} and ` +
          `${right.rows}×${right.cols}), so there is no difference map.`;
        return;
      }
      diffFigure.hidden = false;
      note.textContent = `${what}. ${drawDifference(q("canvas-compare-diff"), left, right, kind, w)}`;
    },
  };
}
