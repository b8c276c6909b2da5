// Export of what the explorer shows: the sentence as the engine's own JSON
// writer has it (the document the CLI's --attention-json writes for a
// line; docs/attention.md), and the open view as a PNG.

/**
 * Wires the Export buttons; `current()` gives { translator, source, options,
 * view, root } of what is shown: the sentence's source and the options that
 * reproduce it (translation is deterministic).
 */
export function wireExport($, current, onError) {
  $("export-json").addEventListener("click", async () => {
    const { translator, source, options } = current();
    try {
      const json = await translator.exportJson(source, options);
      download(new Blob([json], { type: "application/json" }), "heed-attention.json");
    } catch (e) {
      onError(e);
    }
  });
  $("export-png").addEventListener("click", () => {
    const { view, root } = current();
    const image = viewImage(root, view === "model");
    if (!image.width) {  // a table (Layer by layer, Head roles): no picture
      onError(new Error("This view is a table, not a picture: Export JSON keeps its numbers."));
      return;
    }
    image.toBlob((blob) => download(blob, `heed-${view}.png`), "image/png");
  });
}

// A view as one canvas (several, as the model view's grid, are composed).
function viewImage(view, compose) {
  const canvases = [...view.querySelectorAll("canvas")].filter((c) => c.width > 0 && !c.classList.contains("legend"));
  if (!compose && canvases.length === 1) return canvases[0];
  if (!canvases.length) return document.createElement("canvas");
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
