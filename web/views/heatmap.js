// A labelled attention heatmap on a canvas: rows are queries, columns are
// keys, colour is the weight (viridis, 0 … the map's largest weight).
// Cells of a causal mask (the future, which the decoder never sees) are
// hatched grey, not painted as zero, so the mask itself is visible.
import { prepare } from "./canvas.js";
import { css, viridisLut } from "./color.js";
import { display, max } from "./attention.js";

const FONT = "12px system-ui, sans-serif";

/**
 * Draws `matrix` (rows × cols, row-major) into `canvas`, at most `width`
 * CSS pixels wide. Options: rowLabels, colLabels, causal (hatch j > i),
 * highlight {row, col} (outlined), scale (the weight drawn brightest) and
 * lo (the weight drawn darkest, default 0).
 * Returns the layout, whose cellAt(x, y) maps a mouse position to a cell.
 */
export function drawHeatmap(canvas, matrix, rows, cols, options = {}) {
  const { rowLabels = [], colLabels = [], causal = false, highlight = {}, width = 640 } = options;
  const scale = options.scale || max(matrix) || 1;
  const lo = options.lo ?? 0;
  const g = canvas.getContext("2d");
  g.font = FONT;
  const labelW = Math.min(120, 8 + Math.max(0, ...rowLabels.map((l) => g.measureText(display(l)).width)));
  const labelH = Math.min(110, 8 + 0.8 * Math.max(0, ...colLabels.map((l) => g.measureText(display(l)).width)));
  const cell = Math.max(6, Math.min(30, Math.floor((width - labelW - 4) / Math.max(1, cols))));
  const w = labelW + cols * cell + 4, h = labelH + rows * cell + 4;
  prepare(canvas, w, h);
  g.font = FONT;
  // Where the cells are, in CSS pixels: for hit-testing from outside.
  canvas.dataset.grid = JSON.stringify({ x: labelW, y: labelH, cell, rows, cols });
  const hatch = hatchPattern(g);
  for (let i = 0; i < rows; ++i) {
    for (let j = 0; j < cols; ++j) {
      const x = labelW + j * cell, y = labelH + i * cell;
      if (causal && j > i) {
        g.fillStyle = hatch;
      } else {
        g.fillStyle = css(viridisLut((matrix[i * cols + j] - lo) / (scale - lo)));
      }
      g.fillRect(x, y, cell, cell);
    }
  }
  const ink = getComputedStyle(canvas).color || "#222";
  const dim = (i, which) => highlight[which] !== undefined && highlight[which] !== i;
  g.textBaseline = "middle";
  g.textAlign = "right";
  rowLabels.forEach((l, i) => {
    g.fillStyle = ink;
    g.globalAlpha = dim(i, "row") ? 0.45 : 1;
    g.fillText(clip(g, display(l), labelW - 6), labelW - 4, labelH + (i + 0.5) * cell);
  });
  g.textAlign = "left";
  colLabels.forEach((l, j) => {
    g.save();
    g.globalAlpha = dim(j, "col") ? 0.45 : 1;
    g.translate(labelW + (j + 0.5) * cell, labelH - 4);
    g.rotate(-Math.PI / 3);
    g.fillStyle = ink;
    g.fillText(clip(g, display(l), labelH * 1.1), 0, 0);
    g.restore();
  });
  g.globalAlpha = 1;
  g.strokeStyle = "#ff2d55";
  g.lineWidth = 2;
  if (highlight.row !== undefined) g.strokeRect(labelW + 1, labelH + highlight.row * cell + 1, cols * cell - 2, cell - 2);
  if (highlight.col !== undefined) g.strokeRect(labelW + highlight.col * cell + 1, labelH + 1, cell - 2, rows * cell - 2);
  return {
    scale,
    cellAt(x, y) {
      const j = Math.floor((x - labelW) / cell), i = Math.floor((y - labelH) / cell);
      const row = i >= 0 && i < rows ? i : undefined, col = j >= 0 && j < cols ? j : undefined;
      // Over a label: the whole row or column.
      if (x < labelW && row !== undefined) return { row };
      if (y < labelH && col !== undefined) return { col };
      return row !== undefined && col !== undefined ? { row, col } : {};
    },
  };
}

/** A small heatmap without labels, for the model view's grid. */
export function drawThumbnail(canvas, matrix, rows, cols, size, causal = false) {
  const g = prepare(canvas, size, size);
  const scale = max(matrix) || 1;
  const cw = size / cols, ch = size / rows;
  const hatch = hatchPattern(g);
  for (let i = 0; i < rows; ++i) {
    for (let j = 0; j < cols; ++j) {
      g.fillStyle = causal && j > i ? hatch : css(viridisLut(matrix[i * cols + j] / scale));
      g.fillRect(j * cw, i * ch, Math.ceil(cw), Math.ceil(ch));
    }
  }
}

function hatchPattern(g) {
  const tile = document.createElement("canvas");
  tile.width = tile.height = 6;
  const t = tile.getContext("2d");
  t.fillStyle = "#d9d9de";
  t.fillRect(0, 0, 6, 6);
  t.strokeStyle = "#8e8e96";
  t.lineWidth = 1;
  t.beginPath();
  t.moveTo(0, 6);
  t.lineTo(6, 0);
  t.stroke();
  return g.createPattern(tile, "repeat");
}

function clip(g, text, width) {
  if (g.measureText(text).width <= width) return text;
  let s = text;
  while (s.length > 1 && g.measureText(`${s}…`).width > width) s = s.slice(0, -1);
  return `${s}…`;
}
