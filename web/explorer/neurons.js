// Look into one head: its query and key vectors for the chosen word, asked
// of the engine for this sentence, kind, layer and head.
import { KIND_NAMES, labels } from "../views/attention.js";
import { drawNeurons } from "../views/neurons.js";

export function mount(root, ctx) {
  const kindSelect = root.querySelector("#neuron-kind");
  const querySelect = root.querySelector("#neuron-query");
  const note = root.querySelector("#neuron-note");
  kindSelect.addEventListener("input", () => {
    querySelect.value = "";
    ctx.render();
  });
  querySelect.addEventListener("input", ctx.render);

  // One extra run per (kind, layer, head), forced through the shown pieces.
  async function vectors(sel, kind, layer, head) {
    const shown = sel.sentence;
    shown.neurons ??= new Map();
    const key = `${kind}/${layer}/${head}`;
    if (!shown.neurons.has(key)) {
      const r = await ctx.translator.translate(shown.source, {
        ...sel.options, attention: true, queryKey: { kind, layer, head },
        prefixPieces: shown.targetPieces.filter((p) => p !== "</s>"),
      });
      shown.neurons.set(key, r.sentences[0].attention.queryKey);
    }
    return shown.neurons.get(key);
  }

  function fillQueries(rows) {
    const keep = querySelect.value;
    querySelect.replaceChildren(...rows.map((p, i) => new Option(`${i + 1}: ${p.replace(/\u2581/g, "")}`, i)));
    querySelect.value = keep !== "" && Number(keep) < rows.length ? keep : "0";
  }

  return {
    async render(sel) {
      const kind = kindSelect.value;
      const layer = sel.layer(kind), head = sel.head === "mean" ? 0 : sel.head;
      const { rows, cols } = labels(sel.sentence, kind);
      fillQueries(rows);
      const qk = await vectors(sel, kind, layer, head);
      if (!ctx.current(sel)) return;
      const i = Number(querySelect.value);
      const drawn = drawNeurons(root.querySelector("#canvas-neurons"), {
        query: qk.queries[i], keys: qk.keys, queryLabel: rows[i], keyLabels: cols,
        visible: kind === "decoder" ? i + 1 : cols.length, width: ctx.width(root),
      });
      const best = drawn.weights.indexOf(Math.max(...drawn.weights));
      note.textContent = `${KIND_NAMES[kind]}, layer ${layer + 1}, head ${head + 1}` +
        (sel.head === "mean" ? " (the view is of one head: choose another above)" : "") +
        `: "${rows[i].replace(/\u2581/g, "")}" looks most at "${cols[best].replace(/\u2581/g, "")}" ` +
        `(${(100 * drawn.weights[best]).toFixed(0)}%).`;
    },
  };
}
