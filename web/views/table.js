// Small table pieces the views share: a probability bar and a grid of
// decoder layers × target pieces.
import { display } from "./attention.js";

// Two cells: a bar as wide as `probability` and the percentage.
export function probabilityCells(probability) {
  const bar = document.createElement("td");
  bar.className = "bar";
  const fill = document.createElement("div");
  fill.className = "fill";
  fill.style.width = `${(100 * probability).toFixed(1)}%`;
  bar.append(fill);
  const pct = document.createElement("td");
  pct.textContent = `${(100 * probability).toFixed(1)}%`;
  return [bar, pct];
}

// Fills `table` with a header of the pieces and one row per layer, the
// last layer on top; cell(layer, step, piece) makes each <td>.
export function layerGrid(table, pieces, layers, cell) {
  const head = document.createElement("tr");
  head.append(document.createElement("th"), ...pieces.map((p) => {
    const th = document.createElement("th");
    th.scope = "col";
    th.textContent = display(p);
    return th;
  }));
  const rows = [];
  for (let l = layers - 1; l >= 0; --l) {
    const tr = document.createElement("tr");
    const name = document.createElement("th");
    name.scope = "row";
    name.textContent = `layer ${l + 1}`;
    tr.append(name, ...pieces.map((piece, i) => cell(l, i, piece)));
    rows.push(tr);
  }
  table.replaceChildren(head, ...rows);
}
