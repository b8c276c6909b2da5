// Step by step: what the decoder had written before a step, the candidates
// it weighed (each one a fork: take it and decode the rest), and where the
// step looked in the source.
import { display, pick, shape } from "../views/attention.js";
import { drawHeatmap } from "../views/heatmap.js";
import { probabilityCells } from "../views/table.js";
import { paintTokens } from "../views/tokens.js";

export function mount(root, ctx) {
  const slider = root.querySelector("#step");
  slider.addEventListener("input", ctx.render);

  function candidateRow(s, t, c) {
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
      take.addEventListener("click", () => ctx.fork(t, c.piece));
      name.append(take);
    }
    tr.append(name, ...probabilityCells(c.probability));
    return tr;
  }

  return {
    reset() {
      slider.value = "0";
    },
    select(step) {
      slider.value = String(step);
    },
    render(sel) {
      const s = sel.sentence, T = s.targetPieces.length;
      slider.max = String(T - 1);
      const t = Math.min(Number(slider.value), T - 1);
      root.querySelector("#step-label").textContent = `${t + 1} of ${T}`;
      const written = root.querySelector("#step-written");
      paintTokens(written, s.targetPieces.slice(0, t + 1), null, undefined);
      written.lastElementChild?.classList.add("next");
      root.querySelector("#step-candidates").replaceChildren(
        ...(s.alternatives?.[t] ?? []).map((c) => candidateRow(s, t, c)));
      const [, cols] = shape(sel.attention, "cross");
      const m = pick(sel.attention, "cross", sel.layer("cross"), sel.head);
      const row = Array.from(m.subarray(t * cols, (t + 1) * cols));
      paintTokens(root.querySelector("#step-source"), s.sourcePieces, row, undefined);
      const canvas = root.querySelector("#canvas-steps");
      drawHeatmap(canvas, Float32Array.from(row), 1, cols, {
        rowLabels: [s.targetPieces[t]], colLabels: s.sourcePieces, width: ctx.width(canvas) * 0.6,
      });
    },
  };
}
