// The sinusoidal positional encoding the engine adds, for the sentence's
// length, and the cosine similarity of its positions.
import { display } from "../views/attention.js";
import { drawLegend } from "../views/color.js";
import { drawEncoding, drawSimilarity, similarity } from "../views/positional.js";

export function mount(root, ctx) {
  let pe = null;  // the encoding for the last length asked
  return {
    async render(sel) {
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
