// The sinusoidal positional encoding the model adds to its embeddings, as
// the engine computes it, and the similarity between positions it creates.
import { prepare } from "./canvas.js";
import { css, viridisLut } from "./color.js";
import { drawHeatmap } from "./heatmap.js";

/**
 * Draws pe.values (positions × dims, in [-1, 1]) into `canvas`, one row
 * per position, at most `width` CSS pixels wide.
 */
export function drawEncoding(canvas, pe, labels, width = 640) {
  const labelW = 90, rowH = Math.max(4, Math.min(18, Math.floor(360 / Math.max(1, pe.positions))));
  const cellW = Math.max(1, Math.floor((width - labelW) / pe.dims));
  const w = labelW + cellW * pe.dims, h = 18 + rowH * pe.positions;
  const g = prepare(canvas, w, h);
  for (let p = 0; p < pe.positions; ++p) {
    for (let d = 0; d < pe.dims; ++d) {
      g.fillStyle = css(viridisLut((pe.values[p * pe.dims + d] + 1) / 2));
      g.fillRect(labelW + d * cellW, 18 + p * rowH, cellW, rowH);
    }
  }
  const ink = getComputedStyle(canvas).color || "#222";
  g.fillStyle = ink;
  g.font = "11px system-ui, sans-serif";
  g.textBaseline = "middle";
  g.textAlign = "right";
  if (rowH >= 10) labels.forEach((l, p) => g.fillText(`${p} ${l}`.slice(0, 14), labelW - 4, 18 + (p + 0.5) * rowH));
  g.textAlign = "left";
  g.fillText("dimension 0 →", labelW, 8);
  g.textAlign = "right";
  g.fillText(`${pe.dims - 1}`, w, 8);
}

/**
 * The cosine similarity of every pair of positions: it depends only on
 * their distance, which is why attention can recover relative positions.
 */
export function similarity(pe) {
  const { positions: n, dims: d, values: v } = pe;
  const out = new Float32Array(n * n);
  for (let i = 0; i < n; ++i) {
    for (let j = 0; j < n; ++j) {
      let dot = 0, a = 0, b = 0;
      for (let k = 0; k < d; ++k) {
        const x = v[i * d + k], y = v[j * d + k];
        dot += x * y;
        a += x * x;
        b += y * y;
      }
      out[i * n + j] = dot / Math.sqrt(a * b);
    }
  }
  return out;
}

/** Draws the similarity matrix with its own range; returns [lo, hi]. */
export function drawSimilarity(canvas, sim, n, labels, width) {
  const lo = Math.min(...sim), hi = Math.max(...sim);
  drawHeatmap(canvas, sim, n, n, { rowLabels: labels, colLabels: labels, lo, scale: hi > lo ? hi : lo + 1, width });
  return [lo, hi];
}
