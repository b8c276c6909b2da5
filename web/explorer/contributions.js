// Contributions: raw attention, what each token actually adds (norm-based,
// Kobayashi et al. 2020) and the encoder's rollout side by side, and each
// target word's source and previous-word shares per decoder layer.
import { display, labels, shape } from "../views/attention.js";
import { drawContributions, drawShares, overstated } from "../views/contributions.js";

export function mount(root, ctx) {
  root.querySelector("#contrib-kind").addEventListener("input", ctx.render);

  // Contributions cost an extra pass: the first time the view needs them,
  // the sentence is translated again with them, forced through the same
  // pieces; the view draws from that run throughout.
  async function explained(sel) {
    const shown = sel.sentence;
    if (!shown.explained) {
      const r = await ctx.translator.translate(shown.source, {
        ...sel.options, attention: true, contributions: true,
        prefixPieces: shown.targetPieces.filter((p) => p !== "</s>"),
      });
      shown.explained = r.sentences[0];
    }
    return shown.explained;
  }

  return {
    async render(sel) {
      const s = await explained(sel);
      if (!ctx.current(sel)) return;  // another sentence was chosen meanwhile
      const kind = root.querySelector("#contrib-kind").value;
      const l = sel.layer(kind), h = sel.head;
      const w = Math.max(240, (root.clientWidth - 48) / (window.innerWidth > 900 ? 3 : 1));
      const maps = drawContributions({ raw: root.querySelector("#canvas-contrib-raw"),
        weighted: root.querySelector("#canvas-contrib-weighted"),
        rollout: root.querySelector("#canvas-contrib-rollout") }, s, kind, l, h, w);
      drawShares(root.querySelector("#contrib-shares"), s);
      root.querySelector("#contrib-weighted-caption").textContent = h === "mean"
        ? "What each token adds through the whole layer" : "What each token adds through this head";
      const [rows, cols] = shape(s.attention, kind);
      const o = overstated(maps.raw, maps.weighted, rows, cols);
      const piece = display(labels(s, kind).cols[o.column]);
      root.querySelector("#contrib-note").textContent = o.raw - o.weighted > 0.02
        ? `Here "${piece}" gets ${(100 * o.raw).toFixed(0)}% of the attention but passes on only ` +
          `${(100 * o.weighted).toFixed(0)}% of what this ${h === "mean" ? "layer" : "head"} adds.`
        : "Here raw attention and what the tokens add agree closely.";
    },
  };
}
