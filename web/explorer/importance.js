// What each part is worth: BLEU on Multi30k val with each head, each
// sublayer and the positional encoding switched off alone (a layer ×
// component grid of the drop), and heads pruned least important first
// (models/recipe/importance.py → models/eval/importance.json, fetched
// when the view first opens). A cell opens that head or sublayer in
// "Switch heads off".
import { KIND_NAMES } from "../views/attention.js";
import { diverging } from "../views/color.js";
import { prepare } from "../views/canvas.js";

const FILE = "models/eval/importance.json";
const SUBLAYER_NAMES = {
  "encoder-self": "self-attention", "encoder-ffn": "feed-forward", "decoder-self": "self-attention",
  cross: "cross-attention", "decoder-ffn": "feed-forward",
};
// The grid's blocks: a kind's heads and the sublayers of the same stack.
const BLOCKS = [
  { title: "Encoder", heads: "encoder", sublayers: ["encoder-self", "encoder-ffn"] },
  { title: "Decoder", heads: "decoder", sublayers: ["decoder-self", "decoder-ffn"] },
  { title: "Decoder cross-attention", heads: "cross", sublayers: ["cross"] },
];
const LINE_COLORS = { "en-de": "#1f77b4", "de-en": "#d95f02" };

function dropCell(score, base, metric, label, onClick) {
  const td = document.createElement("td");
  const drop = base[metric] - score[metric];
  const b = Object.assign(document.createElement("button"), { type: "button", textContent: drop.toFixed(1) });
  b.title = `${label}: ${metric === "bleu" ? "BLEU" : "chrF"} ${score[metric].toFixed(1)} ` +
    `(${drop >= 0 ? "−" : "+"}${Math.abs(drop).toFixed(1)})`;
  b.dataset.drop = drop.toFixed(2);
  // Orange for a loss, blue for a gain; saturated at a drop of 10.
  const [r, g, bl] = diverging(Math.max(-1, Math.min(1, drop / 10)));
  b.style.background = `rgb(${r} ${g} ${bl})`;
  b.addEventListener("click", onClick);
  td.append(b);
  return td;
}

function block(spec, d, metric, open) {
  const table = document.createElement("table");
  table.className = "importance-grid";
  table.dataset.block = spec.heads;
  const caption = Object.assign(document.createElement("caption"), { textContent: spec.title });
  const heads = d.heads[spec.heads][0].length;
  const head = document.createElement("tr");
  head.append(document.createElement("th"));
  for (let h = 0; h < heads; ++h) head.append(Object.assign(document.createElement("th"), { textContent: `head ${h + 1}` }));
  for (const s of spec.sublayers) head.append(Object.assign(document.createElement("th"), { textContent: SUBLAYER_NAMES[s] }));
  const rows = d.heads[spec.heads].map((layer, l) => {
    const tr = document.createElement("tr");
    tr.append(Object.assign(document.createElement("th"), { scope: "row", textContent: `layer ${l + 1}` }));
    layer.forEach((score, h) => tr.append(dropCell(score, d.baseline, metric,
      `${KIND_NAMES[spec.heads]}, layer ${l + 1}, head ${h + 1} off`, () => open({ head: [spec.heads, l, h] }))));
    for (const s of spec.sublayers) {
      tr.append(dropCell(d.sublayers[s][l], d.baseline, metric, `${s} of layer ${l + 1} off`,
        () => open({ sublayer: [s, l] })));
    }
    return tr;
  });
  table.append(caption, head, ...rows);
  return table;
}

// BLEU (or chrF) against heads removed, one line per direction.
function drawPruning(canvas, data, metric, width) {
  const h = 220, pad = { left: 44, right: 12, top: 12, bottom: 34 };
  const g = prepare(canvas, width, h);
  const curves = Object.entries(data.directions).map(([dir, d]) => [dir, d.pruning]);
  const maxX = Math.max(...curves.flatMap(([, c]) => c.map((p) => p.removed)));
  const maxY = Math.max(...curves.flatMap(([, c]) => c.map((p) => p[metric])), 1);
  const x = (v) => pad.left + (v / maxX) * (width - pad.left - pad.right);
  const y = (v) => h - pad.bottom - (v / maxY) * (h - pad.top - pad.bottom);
  g.strokeStyle = "#999";
  g.fillStyle = "#555";
  g.font = "11px system-ui, sans-serif";
  g.beginPath();
  g.moveTo(pad.left, pad.top);
  g.lineTo(pad.left, h - pad.bottom);
  g.lineTo(width - pad.right, h - pad.bottom);
  g.stroke();
  for (let v = 0; v <= maxX; v += 8) g.fillText(String(v), x(v) - 4, h - pad.bottom + 14);
  g.fillText("heads switched off, least important first", pad.left + 40, h - 4);
  for (let v = 0; v <= maxY; v += 10) g.fillText(String(v), 8, y(v) + 4);
  let legend = pad.top + 10;
  for (const [dir, curve] of curves) {
    g.strokeStyle = g.fillStyle = LINE_COLORS[dir] ?? "#333";
    g.lineWidth = 2;
    g.beginPath();
    curve.forEach((p, i) => (i ? g.lineTo(x(p.removed), y(p[metric])) : g.moveTo(x(p.removed), y(p[metric]))));
    g.stroke();
    g.fillText(dir, width - pad.right - 40, legend);
    legend += 14;
  }
  g.lineWidth = 1;
}

export function mount(root, ctx) {
  const grids = root.querySelector("#importance-grids");
  const canvas = root.querySelector("#canvas-pruning");
  const metricSelect = root.querySelector("#importance-metric");
  const directionSelect = root.querySelector("#importance-direction");
  let file = null;  // the fetch of FILE, once
  metricSelect.addEventListener("input", ctx.render);
  directionSelect.addEventListener("input", ctx.render);

  async function load() {
    file ??= fetch(FILE).then((r) => {
      if (!r.ok) throw new Error(`heed: cannot fetch ${FILE}: HTTP ${r.status}`);
      return r.json();
    });
    return file.catch((e) => {
      file = null;  // a later render tries again
      throw e;
    });
  }

  return {
    async render() {
      if (!ctx.shipped()) {  // the measurements are of the page's model
        grids.replaceChildren();
        canvas.getContext("2d")?.clearRect(0, 0, canvas.width, canvas.height);
        root.querySelector("#importance-note").textContent = "These runs measured the page's own model, " +
          "not the one you opened: models/recipe/importance.py measures yours.";
        grids.dataset.ready = "not this model";
        return;
      }
      const data = await load();
      const metric = metricSelect.value, d = data.directions[directionSelect.value];
      const open = (what) => ctx.open("ablation", { switchOff: what });
      grids.replaceChildren(...BLOCKS.map((spec) => block(spec, d, metric, open)));
      const pos = Object.entries(d.positions).map(([mode, s]) =>
        `positions ${mode}: −${(d.baseline[metric] - s[metric]).toFixed(1)}`).join(", ");
      root.querySelector("#importance-note").textContent =
        `${data.set}, ${data.sentences} sentences, ${data.beam === 1 ? "greedy" : `beam ${data.beam}`}: ` +
        `${metric === "bleu" ? "BLEU" : "chrF"} ${d.baseline[metric].toFixed(1)} with everything on; ${pos}. ` +
        `${data.runs} runs in ${Math.max(1, Math.round(data.seconds / 60))} min on ${data.jobs} ` +
        `core${data.jobs === 1 ? "" : "s"} (${data.cpu}).`;
      drawPruning(canvas, data, metric, Math.min(640, ctx.width(canvas)));
      grids.dataset.ready = `${directionSelect.value} ${metric}`;
    },
  };
}
