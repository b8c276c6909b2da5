// Export of what the explorer shows: the sentence's attention as JSON (the
// schema of docs/attention.md, as the CLI writes it) and the open view as
// a PNG.
import { labels, shape } from "./views/attention.js";

/**
 * Wires the Export buttons; `current()` gives { sentence, options, view,
 * root } of what is shown.
 */
export function wireExport($, current) {
  $("export-json").addEventListener("click", () => {
    const { sentence, options } = current();
    const json = exportJson(sentence, options);
    download(new Blob([json], { type: "application/json" }), "heed-attention.json");
  });
  $("export-png").addEventListener("click", () => {
    const { view, root } = current();
    viewImage(root, view === "model").toBlob((blob) => download(blob, `heed-${view}.png`), "image/png");
  });
}

// One sentence in the schema of docs/attention.md (the CLI's too).
export function exportJson(s, options) {
  const a = s.attention;
  const nest = (kind) => a[kind].map((hs) => hs.map((m) => {
    const [rows, cols] = shape(a, kind);
    return Array.from({ length: rows }, (_, i) => Array.from(m.subarray(i * cols, (i + 1) * cols)));
  }));
  return JSON.stringify({
    source: s.source, sourcePieces: s.sourcePieces, targetPieces: s.targetPieces,
    text: s.text, score: s.score, logProb: s.logProb, options,
    decoderInputs: labels(s, "decoder").cols,
    attention: { encoder: nest("encoder"), decoder: nest("decoder"), cross: nest("cross"), shapes: a.shapes },
  });
}

// A view as one canvas (several, as the model view's grid, are composed).
function viewImage(view, compose) {
  const canvases = [...view.querySelectorAll("canvas")].filter((c) => c.width > 0 && !c.classList.contains("legend"));
  if (!compose && canvases.length === 1) return canvases[0];
  const dpr = window.devicePixelRatio || 1;
  const boxes = canvases.map((c) => c.getBoundingClientRect());
  const left = Math.min(...boxes.map((b) => b.left)), top = Math.min(...boxes.map((b) => b.top));
  const out = document.createElement("canvas");
  out.width = Math.ceil((Math.max(...boxes.map((b) => b.right)) - left) * dpr);
  out.height = Math.ceil((Math.max(...boxes.map((b) => b.bottom)) - top) * dpr);
  const g = out.getContext("2d");
  g.fillStyle = "white";
  g.fillRect(0, 0, out.width, out.height);
  canvases.forEach((c, i) => g.drawImage(c, (boxes[i].left - left) * dpr, (boxes[i].top - top) * dpr,
    boxes[i].width * dpr, boxes[i].height * dpr));
  return out;
}

function download(blob, name) {
  const a = document.createElement("a");
  a.href = URL.createObjectURL(blob);
  a.download = name;
  a.click();
  setTimeout(() => URL.revokeObjectURL(a.href), 1000);
}
