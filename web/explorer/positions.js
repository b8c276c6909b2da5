// The sinusoidal positional encoding the engine adds, for the sentence's
// length, and the cosine similarity of its positions; and the sentence
// translated without them, or with the source's shuffled.
import { display } from "../views/attention.js";
import { drawLegend } from "../views/color.js";
import { drawEncoding, drawSimilarity, similarity } from "../views/positional.js";

const RUNS = [["on", "as trained"], ["off", "no positions"], ["shuffled", "source positions shuffled"]];

export function mount(root, ctx) {
  let pe = null;  // the encoding for the last length asked
  let current = null;
  const out = root.querySelector("#word-order-result");

  root.querySelector("#word-order").addEventListener("click", async () => {
    const sel = current;
    out.replaceChildren();
    delete out.dataset.done;
    try {
      for (const [positions, label] of RUNS) {
        const r = await ctx.translator.translate(sel.sentence.source, { ...sel.options, positions });
        const dd = Object.assign(document.createElement("dd"), { textContent: r.text });
        dd.dataset.positions = positions;
        out.append(Object.assign(document.createElement("dt"), { textContent: label }), dd);
      }
      out.dataset.done = "1";
    } catch (e) {
      ctx.onError(e);
    }
  });

  return {
    reset() {
      out.replaceChildren();
      pe = null;  // another translation may come from another model
    },
    async render(sel) {
      current = sel;
      const n = Math.max(2, sel.sentence.sourcePieces.length);
      if (pe?.positions !== n) pe = await ctx.translator.positionalEncoding(n);
      const names = sel.sentence.sourcePieces.map(display);
      const w = Math.max(280, (root.clientWidth - 24) / (window.innerWidth > 720 ? 2 : 1));
      drawEncoding(root.querySelector("#canvas-positions"), pe, names, w);
      const [lo, hi] = drawSimilarity(root.querySelector("#canvas-similarity"), similarity(pe), n, names, w);
      const [peLegend, simLegend] = root.querySelectorAll("canvas.legend");
      drawLegend(peLegend, -1, 1, "encoding value");
      drawLegend(simLegend, lo, hi, "cosine similarity");
    },
  };
}
