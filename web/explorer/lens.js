// Layer by layer (the logit lens) tab: decoding steps × decoder layers,
// from the translation's own run; each cell the piece that layer would
// output if the layers above it were not there, and its probability. A cell
// whose piece is the one finally written is outlined: the word has formed by
// that layer. Clicking a cell lists its top pieces.
import { display } from "../views/attention.js";
import { css, viridis } from "../views/color.js";
import { layerGrid, probabilityCells } from "../views/table.js";

// table: the <table> to fill; detail: the element for a cell's top pieces.
function drawLens(table, detail, sentence) {
  const lens = sentence.logitLens;
  table.replaceChildren();
  detail.replaceChildren();
  if (!lens) return;
  layerGrid(table, sentence.targetPieces, lens.top.length,
    (l, i, piece) => cell(lens, l, i, piece, detail));
}

function cell(lens, l, i, piece, detail) {
  const td = document.createElement("td");
  const [best] = lens.top[l][i];
  const p = best.probability;
  const button = document.createElement("button");
  button.type = "button";
  button.textContent = display(best.piece);
  button.title = `layer ${l + 1}, step ${i + 1}: ${display(best.piece)} ${(100 * p).toFixed(1)}%; ` +
    `"${display(piece)}" ${(100 * lens.tokenProbabilities[l][i]).toFixed(1)}%`;
  const [r, g, b] = viridis(p);
  button.style.background = css([r, g, b]);
  button.style.color = p > 0.55 ? "black" : "white";
  if (best.piece === piece) button.classList.add("formed");
  button.addEventListener("click", () => showTop(detail, lens, l, i, piece));
  td.append(button);
  return td;
}

function showTop(detail, lens, l, i, piece) {
  const title = document.createElement("p");
  title.textContent = `Layer ${l + 1}, step ${i + 1} (written: ${display(piece)}); ` +
    `this layer gives it ${(100 * lens.tokenProbabilities[l][i]).toFixed(1)}%:`;
  const list = document.createElement("table");
  list.className = "lens-top candidates";
  for (const c of lens.top[l][i]) {
    const tr = document.createElement("tr");
    if (c.piece === piece) tr.className = "chosen";
    const name = document.createElement("td");
    name.textContent = display(c.piece);
    tr.append(name, ...probabilityCells(c.probability));
    list.append(tr);
  }
  detail.replaceChildren(title, list);
}

export function mount(root) {
  return {
    render(sel) {
      drawLens(root.querySelector("#lens-grid"), root.querySelector("#lens-detail"), sel.sentence);
    },
  };
}
