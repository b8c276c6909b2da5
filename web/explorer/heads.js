// bertviz's head view: lines from each token to the tokens it attends to,
// one colour per head, heads toggled by buttons.
import { heads, labels, shape } from "../views/attention.js";
import { headColor } from "../views/color.js";
import { drawHeadView } from "../views/headview.js";

export function mount(root, ctx) {
  const canvas = root.querySelector("#canvas-heads");
  let shown = null;  // Set of the heads drawn
  let layout = null;
  canvas.addEventListener("mousemove", (e) => ctx.hover(layout?.tokenAt(e.offsetX, e.offsetY) ?? {}));
  canvas.addEventListener("mouseleave", () => ctx.hover({}));
  root.querySelector("#heads-kind").addEventListener("input", ctx.render);
  return {
    render(sel) {
      const kind = root.querySelector("#heads-kind").value, a = sel.attention, nh = heads(a);
      if (!shown || [...shown].some((h) => h >= nh)) shown = new Set(Array.from({ length: nh }, (_, h) => h));
      const [rows, cols] = shape(a, kind);
      const { rows: left, cols: right } = labels(sel.sentence, kind);
      root.querySelector("#head-toggles").replaceChildren(...Array.from({ length: nh }, (_, h) => {
        const b = document.createElement("button");
        b.type = "button";
        b.textContent = `head ${h + 1}`;
        b.style.background = headColor(h);
        b.setAttribute("aria-pressed", String(shown.has(h)));
        b.addEventListener("click", () => {
          if (shown.has(h)) shown.delete(h);
          else shown.add(h);
          ctx.render();
        });
        return b;
      }));
      layout = drawHeadView(canvas, a[kind][sel.layer(kind)], rows, cols, left, right,
        [...shown].sort((x, y) => x - y), sel.focus, ctx.width(canvas));
    },
  };
}
