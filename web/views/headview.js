// The head view (after bertviz): query tokens on the left, key tokens on
// the right, one line per head and pair whose opacity is the weight, one
// colour per head. Hovering a token keeps only its lines.
import { prepare } from "./canvas.js";
import { headColor } from "./color.js";
import { display } from "./attention.js";

const FONT = "13px system-ui, sans-serif";
const ROW = 22;

/**
 * Draws the heads `shown` (indices) of `maps` (one rows × cols matrix per
 * head). focus {side: "left"|"right", index} keeps only that token's lines.
 * Returns the layout, whose tokenAt(x, y) maps a mouse position to a token.
 */
export function drawHeadView(canvas, maps, rows, cols, leftLabels, rightLabels, shown, focus = {}, width = 520) {
  const g = canvas.getContext("2d");
  g.font = FONT;
  const colW = Math.min(150, 12 + Math.max(0, ...[...leftLabels, ...rightLabels].map((l) => g.measureText(display(l)).width)));
  const w = Math.max(2 * colW + 80, Math.min(width, 2 * colW + 260));
  const h = Math.max(rows, cols) * ROW + 12;
  prepare(canvas, w, h);
  g.font = FONT;
  const xl = colW, xr = w - colW, y = (i) => 6 + (i + 0.5) * ROW;
  g.lineWidth = 2;
  for (const head of shown) {
    g.strokeStyle = headColor(head);
    const m = maps[head];
    for (let i = 0; i < rows; ++i) {
      if (focus.side === "left" && focus.index !== i) continue;
      for (let j = 0; j < cols; ++j) {
        if (focus.side === "right" && focus.index !== j) continue;
        const a = m[i * cols + j];
        if (a < 0.01) continue;
        g.globalAlpha = Math.min(1, a * (shown.length > 1 ? 0.9 : 1));
        g.beginPath();
        g.moveTo(xl + 4, y(i));
        g.lineTo(xr - 4, y(j));
        g.stroke();
      }
    }
  }
  g.globalAlpha = 1;
  const ink = getComputedStyle(canvas).color || "#222";
  g.textBaseline = "middle";
  const label = (text, x, i, side) => {
    const on = focus.side === side && focus.index === i;
    g.fillStyle = on ? "#ff2d55" : ink;
    g.font = on ? `bold ${FONT}` : FONT;
    g.fillText(display(text), x, y(i));
  };
  g.textAlign = "right";
  leftLabels.forEach((l, i) => label(l, xl - 4, i, "left"));
  g.textAlign = "left";
  rightLabels.forEach((l, j) => label(l, xr + 4, j, "right"));
  return {
    tokenAt(x, yy) {
      const i = Math.floor((yy - 6) / ROW);
      if (x < xl + 10 && i >= 0 && i < rows) return { side: "left", index: i };
      if (x > xr - 10 && i >= 0 && i < cols) return { side: "right", index: i };
      return {};
    },
  };
}
