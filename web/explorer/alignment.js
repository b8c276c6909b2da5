// Cross-attention as an alignment: the heatmap, and the source and target
// pieces as chips that light up with the hovered row or column.
import { shape } from "../views/attention.js";
import { paintTokens } from "../views/tokens.js";
import { drawMap, hoverCells } from "./matrix.js";

export function mount(root, ctx) {
  const canvas = root.querySelector("#canvas-alignment");
  let layout = null;
  hoverCells(canvas, ctx, () => layout);
  return {
    render(sel) {
      const drawn = drawMap(canvas, sel, "cross", ctx.width(canvas));
      layout = drawn.layout;
      const m = drawn.matrix;
      const [rows, cols] = shape(sel.attention, "cross");
      const { row, col } = sel.focus;
      const rowWeights = row !== undefined ? Array.from(m.subarray(row * cols, (row + 1) * cols)) : null;
      const colWeights = col !== undefined ? Array.from({ length: rows }, (_, i) => m[i * cols + col]) : null;
      paintTokens(root.querySelector("#align-source"), sel.sentence.sourcePieces, rowWeights, col,
        (j) => ctx.hover({ col: j }));
      paintTokens(root.querySelector("#align-target"), sel.sentence.targetPieces, colWeights, row,
        (i) => ctx.hover({ row: i }));
    },
  };
}
