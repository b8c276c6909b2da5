// Switch parts off: choose heads, whole sublayers or the positional
// encoding to take away, translate again, and see what changed in the words
// and in the cross-attention.
import { KIND_NAMES, heads, layers, pick } from "../views/attention.js";
import { markDiff } from "../views/diff.js";
import { drawHeatmap } from "../views/heatmap.js";

// One layer's row of head checkboxes and its "all" button; `masked` holds
// the "kind/layer/head" keys switched off.
function layerRow(masked, kind, l, nh) {
  const row = document.createElement("div");
  row.className = "row";
  row.append(Object.assign(document.createElement("span"), { textContent: `layer ${l + 1}` }));
  const boxes = Array.from({ length: nh }, (_, h) => {
    const box = document.createElement("input");
    box.type = "checkbox";
    box.dataset.key = `${kind}/${l}/${h}`;
    box.checked = masked.has(box.dataset.key);
    box.title = `switch off ${KIND_NAMES[kind]} layer ${l + 1} head ${h + 1}`;
    box.addEventListener("change", () => {
      if (box.checked) masked.add(box.dataset.key);
      else masked.delete(box.dataset.key);
    });
    return box;
  });
  const all = document.createElement("button");
  all.type = "button";
  all.textContent = "all";
  all.title = `switch off every head of ${KIND_NAMES[kind]} layer ${l + 1}`;
  all.dataset.layerKey = `${kind}/${l}`;
  all.addEventListener("click", () => {
    const on = !boxes.every((b) => b.checked);
    for (const b of boxes) {
      b.checked = on;
      b.dispatchEvent(new Event("change"));
    }
  });
  row.append(...boxes, all);
  return row;
}

// The sublayers of each side, as the engine names them (switchOff).
const SUBLAYERS = {
  encoder: [["encoder-self", "self-attention"], ["encoder-ffn", "feed-forward"]],
  decoder: [["decoder-self", "self-attention"], ["cross", "cross-attention"], ["decoder-ffn", "feed-forward"]],
};

// A checkbox per sublayer of each layer; `off` holds "sublayer/layer" keys.
function sublayerRows(off, a) {
  return Object.entries(SUBLAYERS).flatMap(([side, parts]) =>
    Array.from({ length: layers(a, side) }, (_, l) => {
      const row = document.createElement("div");
      row.className = "row";
      row.append(Object.assign(document.createElement("span"), { textContent: `${side} layer ${l + 1}` }));
      for (const [name, label] of parts) {
        const box = Object.assign(document.createElement("input"), { type: "checkbox" });
        box.dataset.sublayer = `${name}/${l}`;
        box.checked = off.has(box.dataset.sublayer);
        box.addEventListener("change", () => (box.checked ? off.add : off.delete).call(off, box.dataset.sublayer));
        const tag = document.createElement("label");
        tag.append(box, ` ${label}`);
        row.append(tag);
      }
      return row;
    }));
}

export function mount(root, ctx) {
  const masked = new Set();  // "kind/layer/head" switched off
  const off = new Set();     // "sublayer/layer" switched off
  const result = root.querySelector("#ablation-result");
  const canvas = root.querySelector("#canvas-ablation");
  let current = null;  // the selection last drawn

  async function ablate() {
    const s = current.sentence;
    const maskHeads = [...masked].map((k) => {
      const [kind, l, h] = k.split("/");
      return { kind, layer: Number(l), head: Number(h) };
    });
    root.querySelector("#ablate").disabled = true;
    result.textContent = "translating…";
    try {
      const switchOff = [...off].map((k) => {
        const [sublayer, l] = k.split("/");
        return { sublayer, layer: Number(l) };
      });
      const positions = root.querySelector("#ablation-positions").value;
      const r = await ctx.translator.translate(s.source,
        { ...current.options, attention: true, maskHeads, switchOff, positions });
      const out = r.sentences[0];
      markDiff(result, out.text, out.score, s.text);
      result.dataset.text = out.text;
      result.dataset.score = String(out.score);
      const last = out.attention.cross.length - 1;
      drawHeatmap(canvas, pick(out.attention, "cross", last, "mean"), out.targetPieces.length,
        out.sourcePieces.length, { rowLabels: out.targetPieces, colLabels: out.sourcePieces, width: ctx.width(canvas) });
    } catch (e) {
      result.textContent = "";
      ctx.onError(e);
    } finally {
      root.querySelector("#ablate").disabled = false;
    }
  }

  root.querySelector("#ablate").addEventListener("click", ablate);
  root.querySelector("#ablation-clear").addEventListener("click", () => {
    masked.clear();
    off.clear();
    root.querySelector("#ablation-positions").value = "on";
    ctx.render();
  });

  return {
    reset() {
      result.textContent = "";
      canvas.width = 0;
    },
    // Another view's choice, ready to translate: { switchOff: { head:
    // [kind, layer, head] } or { sublayer: [name, layer] } } alone.
    preset({ switchOff }) {
      if (!switchOff) return;
      masked.clear();
      off.clear();
      root.querySelector("#ablation-positions").value = "on";
      if (switchOff.head) masked.add(switchOff.head.join("/"));
      if (switchOff.sublayer) off.add(switchOff.sublayer.join("/"));
    },
    render(sel) {
      current = sel;
      const a = sel.attention, nh = heads(a);
      root.querySelector("#ablation-grid").replaceChildren(...["encoder", "decoder", "cross"].map((kind) => {
        const fs = document.createElement("fieldset");
        fs.append(Object.assign(document.createElement("legend"), { textContent: KIND_NAMES[kind] }));
        for (let l = 0; l < layers(a, kind); ++l) fs.append(layerRow(masked, kind, l, nh));
        return fs;
      }));
      root.querySelector("#ablation-sublayers").replaceChildren(...sublayerRows(off, a));
      markDiff(root.querySelector("#ablation-original"), sel.sentence.text, sel.sentence.score, null);
    },
  };
}
