// Step by step: what the decoder had written before a step, the candidates
// it weighed (each one a fork: take it and decode the rest; and "why not?":
// which source words made it prefer its own choice, by contrastive
// erasure), and where the step looked in the source.
import { display, pick, shape } from "../views/attention.js";
import { css, diverging } from "../views/color.js";
import { drawHeatmap } from "../views/heatmap.js";
import { probabilityCells } from "../views/table.js";
import { paintTokens } from "../views/tokens.js";

// Contrastive erasure (Yin & Neubig 2022): for each source piece j, how much
// taking it out lowers log p(x) − log p(y) at step t, x the piece chosen
// and y the alternative: Δx_j − Δy_j, each Δ from an erasure request that
// forces the translation up to and including that piece. Positive: the
// source piece pushed the model towards x rather than y.
async function contrastive(ctx, sel, t, y) {
  const s = sel.sentence, prefix = s.targetPieces.slice(0, t);
  const effect = async (piece) => {
    const r = await ctx.translator.translate(s.source,
      { ...sel.options, attention: false, confidence: false, logitLens: 0, erasure: "remove",
        prefixPieces: [...prefix, piece] });
    return r.sentences[0].erasure.effect[t];
  };
  const dx = await effect(s.targetPieces[t]), dy = await effect(y);
  return Array.from(dx, (v, j) => v - dy[j]);
}

// The source pieces tinted by their contrastive effect, and the strongest
// named.
function showContrast(box, s, t, y, effects) {
  const x = display(s.targetPieces[t]), scale = Math.max(...effects.map(Math.abs)) || 1;
  const chips = document.createElement("div");
  chips.className = "tokens";
  chips.append(...s.sourcePieces.map((p, j) => {
    const span = Object.assign(document.createElement("span"), { textContent: display(p) });
    span.style.background = css(diverging(effects[j] / scale));
    span.title = `${effects[j] >= 0 ? "+" : ""}${effects[j].toFixed(2)}`;
    span.dataset.effect = effects[j].toFixed(4);
    return span;
  }));
  const top = effects.map((v, j) => [v, j]).sort((a, b) => b[0] - a[0])[0];
  const text = top[0] > 0
    ? `Why "${x}" and not "${display(y)}"? Most of all because of "${display(s.sourcePieces[top[1]])}": ` +
      `without it, the model's preference for "${x}" falls by ${top[0].toFixed(2)} (log-probability).`
    : `No single source word makes the model prefer "${x}" over "${display(y)}".`;
  box.replaceChildren(Object.assign(document.createElement("p"), { textContent: text }), chips);
  box.dataset.done = `${t}:${y}`;
}

export function mount(root, ctx) {
  const slider = root.querySelector("#step");
  const contrastBox = root.querySelector("#step-contrast");
  let current = null, shownStep = null;  // the selection and step drawn
  let asked = 0;  // "why not?" requests: only the latest is shown
  slider.addEventListener("input", ctx.render);

  async function whyNot(sel, t, y) {
    const mine = ++asked;
    delete contrastBox.dataset.done;
    contrastBox.textContent = "comparing…";
    try {
      const effects = await contrastive(ctx, sel, t, y);
      // Shown only while its sentence and step are.
      if (mine === asked && current?.sentence === sel.sentence && shownStep === String(t)) {
        showContrast(contrastBox, sel.sentence, t, y, effects);
      }
    } catch (e) {
      contrastBox.textContent = "";
      ctx.onError(e);
    }
  }

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
      if (s.targetPieces[t] !== "</s>") {
        const why = Object.assign(document.createElement("button"), { type: "button", textContent: "why not?" });
        why.className = "why-not";
        why.dataset.piece = c.piece;
        why.title = `Which source words made the model write "${display(s.targetPieces[t])}" rather than ` +
          `"${display(c.piece)}" (contrastive erasure)`;
        why.addEventListener("click", () => whyNot(current, t, c.piece));
        name.append(" ", why);
      }
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
      if (current?.sentence !== s || String(t) !== shownStep) {
        contrastBox.replaceChildren();
        ++asked;  // a request still running is for another step
      }
      current = sel;
      shownStep = String(t);
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
