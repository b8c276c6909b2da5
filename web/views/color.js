import { prepare } from "./canvas.js";

// Colour scales. Viridis (perceptually uniform, readable in greyscale and
// by most colour-blind readers) for every weight; a categorical palette
// for heads. Viridis is evaluated from its published polynomial fit.

const C = [
  [0.2777273272234177, 0.005407344544966578, 0.3340998053353061],
  [0.1050930431085774, 1.404613529898575, 1.384590162594685],
  [-0.3308618287255563, 0.214847559468213, 0.09509516302823659],
  [-4.634230498983486, -5.799100973351585, -19.33244095627987],
  [6.228269936347081, 14.17993336680509, 56.69055260068105],
  [4.776384997670288, -13.74514537774601, -65.35303263337234],
  [-5.435455855934631, 4.645852612178535, 26.3124352495832],
];

/** Viridis at t in [0, 1] as [r, g, b] bytes. */
export function viridis(t) {
  const x = Math.min(1, Math.max(0, Number.isFinite(t) ? t : 0));
  const rgb = [0, 1, 2].map((c) => {
    let v = C[6][c];
    for (let k = 5; k >= 0; --k) v = C[k][c] + x * v;
    return Math.round(255 * Math.min(1, Math.max(0, v)));
  });
  return rgb;
}

// 256 precomputed entries: heatmaps look colours up per cell.
const LUT = Array.from({ length: 256 }, (_, i) => viridis(i / 255));

export function viridisLut(t) {
  return LUT[Math.round(255 * Math.min(1, Math.max(0, t)))];
}

/**
 * A diverging scale for signed values, t in [-1, 1]: blue below zero,
 * white at zero, orange above (distinguishable by most colour-blind
 * readers), as [r, g, b] bytes.
 */
export function diverging(t) {
  const x = Math.min(1, Math.max(-1, Number.isFinite(t) ? t : 0));
  const end = x < 0 ? [33, 102, 172] : [230, 97, 1];
  const a = Math.abs(x);
  return end.map((c) => Math.round(255 + a * (c - 255)));
}

export function css([r, g, b], alpha = 1) {
  return alpha === 1 ? `rgb(${r} ${g} ${b})` : `rgb(${r} ${g} ${b} / ${alpha})`;
}

/** One colour per head, distinguishable for up to 16 heads (Tableau 10 + 6). */
const HEADS = ["#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948",
  "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac", "#1f77b4", "#d62728", "#2ca02c",
  "#9467bd", "#8c564b", "#17becf"];

export function headColor(h) {
  return HEADS[h % HEADS.length];
}

/**
 * Draws a horizontal legend for the range [lo, hi] into `canvas`, with the
 * label `what` (for example "attention weight").
 */
export function drawLegend(canvas, lo, hi, what) {
  const w = 220, h = 34;
  const g = prepare(canvas, w, h);
  for (let x = 0; x < w; ++x) {
    g.fillStyle = css(viridisLut(x / (w - 1)));
    g.fillRect(x, 0, 1, 12);
  }
  g.fillStyle = getComputedStyle(canvas).color || "#222";
  g.font = "11px system-ui, sans-serif";
  g.textBaseline = "top";
  g.textAlign = "left";
  g.fillText(format(lo), 0, 16);
  g.textAlign = "right";
  g.fillText(format(hi), w, 16);
  g.textAlign = "center";
  g.fillText(what, w / 2, 16);
}

function format(v) {
  return Math.abs(v) >= 10 || v === 0 ? String(Math.round(v * 10) / 10) : v.toFixed(2);
}
