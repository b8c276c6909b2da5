// The encoder's and the decoder's self-attention as a heatmap of the chosen
// layer and head (or their mean); hovering a cell highlights it everywhere.
import { KIND_NAMES, labels, pick, shape } from "../views/attention.js";
import { drawLegend } from "../views/color.js";
import { drawHeatmap } from "../views/heatmap.js";

/**
 * Draws `kind`'s map of the selection into `canvas`, with its legend and
 * label; returns the matrix drawn and the layout for hit-testing.
 */
export function drawMap(canvas, sel, kind, width) {
  const [rows, cols] = shape(sel.attention, kind);
  const { rows: rowLabels, cols: colLabels } = labels(sel.sentence, kind);
  const l = sel.layer(kind), m = pick(sel.attention, kind, l, sel.head);
  const layout = drawHeatmap(canvas, m, rows, cols, {
    rowLabels, colLabels, causal: kind === "decoder", highlight: sel.focus, width,
  });
  drawLegend(canvas.closest(".view").querySelector("canvas.legend"), 0, layout.scale, "attention weight");
  canvas.setAttribute("aria-label", `${KIND_NAMES[kind]}, layer ${l + 1}, ` +
    (sel.head === "mean" ? "average of heads" : `head ${sel.head + 1}`));
  return { matrix: m, layout };
}

// Reports the hovered cell of a heatmap drawn by drawMap.
export function hoverCells(canvas, ctx, layoutOf) {
  canvas.addEventListener("mousemove", (e) => ctx.hover(layoutOf()?.cellAt(e.offsetX, e.offsetY) ?? {}));
  canvas.addEventListener("mouseleave", () => ctx.hover({}));
}

export function matrixView(kind) {
  return (root, ctx) => {
    const canvas = root.querySelector("canvas:not(.legend)");
    let layout = null;
    hoverCells(canvas, ctx, () => layout);
    return {
      render(sel) {
        layout = drawMap(canvas, sel, kind, ctx.width(canvas)).layout;
      },
    };
  };
}
