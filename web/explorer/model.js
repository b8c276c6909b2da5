// bertviz's model view: every layer and head of one kind as thumbnails;
// a click opens one large.
import { KIND_NAMES, heads, labels, layers, shape } from "../views/attention.js";
import { drawHeatmap, drawThumbnail } from "../views/heatmap.js";

export function mount(root, ctx) {
  const grid = root.querySelector("#model-grid");
  root.querySelector("#model-kind").addEventListener("input", ctx.render);

  function zoom(sel, kind, l, h) {
    const [rows, cols] = shape(sel.attention, kind);
    const { rows: rowLabels, cols: colLabels } = labels(sel.sentence, kind);
    document.getElementById("zoom-title").textContent = `${KIND_NAMES[kind]}, layer ${l + 1}, head ${h + 1}`;
    document.getElementById("zoom").showModal();
    drawHeatmap(document.getElementById("canvas-zoom"), sel.attention[kind][l][h], rows, cols,
      { rowLabels, colLabels, causal: kind === "decoder", width: Math.min(900, window.innerWidth - 80) });
  }

  return {
    render(sel) {
      const kind = root.querySelector("#model-kind").value, a = sel.attention;
      const [rows, cols] = shape(a, kind), nl = layers(a, kind), nh = heads(a);
      const size = Math.max(36, Math.min(110, Math.floor((ctx.width(grid) - 40) / nh) - 6));
      grid.style.gridTemplateColumns = `auto repeat(${nh}, ${size}px)`;
      const label = (textContent) => Object.assign(document.createElement("span"), { className: "label", textContent });
      const cells = [document.createElement("span")];
      for (let h = 0; h < nh; ++h) cells.push(label(`head ${h + 1}`));
      for (let l = 0; l < nl; ++l) {
        cells.push(label(`layer ${l + 1}`));
        for (let h = 0; h < nh; ++h) {
          const c = document.createElement("canvas");
          c.className = "thumb";
          c.dataset.layer = l;
          c.dataset.head = h;
          c.title = `${KIND_NAMES[kind]}, layer ${l + 1}, head ${h + 1}: click to enlarge`;
          drawThumbnail(c, a[kind][l][h], rows, cols, size, kind === "decoder");
          c.addEventListener("click", () => zoom(sel, kind, l, h));
          cells.push(c);
        }
      }
      grid.replaceChildren(...cells);
    },
  };
}
