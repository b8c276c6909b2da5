// Token chips: one span per piece, coloured by a weight each (viridis, as
// the heatmaps), with an optional hover callback.
import { display } from "./attention.js";
import { css, viridisLut } from "./color.js";

export function paintTokens(container, pieces, weights, focusIndex, onHover) {
  const scale = weights ? Math.max(...weights) || 1 : 1;
  container.replaceChildren(...pieces.map((p, i) => {
    const span = document.createElement("span");
    span.textContent = display(p);
    if (weights) {
      const rgb = viridisLut(weights[i] / scale);
      span.style.background = css(rgb);
      span.style.color = 0.3 * rgb[0] + 0.59 * rgb[1] + 0.11 * rgb[2] > 140 ? "#111" : "#fff";
      span.title = `${(100 * weights[i]).toFixed(1)}%`;
    }
    if (i === focusIndex) span.classList.add("focus");
    if (onHover) {
      span.addEventListener("mouseenter", () => onHover(i));
      span.addEventListener("mouseleave", () => onHover(undefined));
    }
    return span;
  }));
}
