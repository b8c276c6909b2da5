// Head roles (docs/heads.md): what each head habitually looks at and how
// far, on this sentence or over the test sets (models/eval/heads.json,
// fetched when first asked), as a table sorted by any column; a row opens
// its head in the view of its kind.
import { KIND_NAMES } from "../views/attention.js";

const TEST_SETS = "models/eval/heads.json";
// [key, header, tooltip]
const COLUMNS = [
  ["kind", "Kind", "Encoder self-attention, decoder masked self-attention or cross-attention"],
  ["layer", "Layer", ""],
  ["head", "Head", ""],
  ["role", "Role", "≥ 90% of rows on one neighbour: a positional head (Voita et al. 2019); “mostly” at ≥ 60%"],
  ["confidence", "Confidence", "Mean over rows of the largest weight"],
  ["previous", "Previous", "Share of rows that look hardest at the token before"],
  ["same", "Same", "Share of rows that look hardest at their own position"],
  ["next", "Next", "Share of rows that look hardest at the token after"],
  ["rare", "Rare", "Share of rows that look hardest at the rarest token they can see"],
  ["boundary", "Boundary", "Share of rows that look hardest at EOS (decoder: <s>), where idle heads park"],
  ["distance", "Distance", "Mean attention distance, in tokens (cross-attention: from the diagonal)"],
];
// The view that opens a head of each kind.
const VIEW_OF = { encoder: "encoder", decoder: "decoder", cross: "alignment" };

// One row per head: { kind, layer, head, ...its statistics }.
function flatten(roles) {
  const out = [];
  for (const kind of ["encoder", "decoder", "cross"]) {
    roles[kind].forEach((heads, layer) => heads.forEach((r, head) => out.push({ kind, layer, head, ...r })));
  }
  return out;
}

function cell(row, key) {
  const td = document.createElement("td");
  const v = row[key];
  if (key === "layer" || key === "head") td.textContent = String(v + 1);
  else if (key === "kind") td.textContent = KIND_NAMES[v];
  else if (key === "role") td.textContent = v || "—";
  else if (key === "distance") td.textContent = v.toFixed(2);
  else td.textContent = `${Math.round(100 * v)}%`;
  if (typeof v === "number" && key !== "layer" && key !== "head" && key !== "distance") {
    td.style.setProperty("--share", v.toFixed(3));
    td.className = "share";
  }
  return td;
}

export function mount(root, ctx) {
  const table = root.querySelector("#roles-table");
  const scope = root.querySelector("#roles-scope");
  const kindFilter = root.querySelector("#roles-kind");
  let sort = { key: "distance", descending: false };
  let testSets = null;  // the fetch of TEST_SETS, once
  let current = null;

  scope.addEventListener("input", ctx.render);
  kindFilter.addEventListener("input", ctx.render);

  async function rolesOf(sel) {
    if (scope.value === "sentence") return { roles: sel.attention.roles, note: "this sentence" };
    if (!ctx.shipped()) {  // models/eval/heads.json is of the page's model
      return { roles: sel.attention.roles,
               note: "this sentence (the test-set figures are of the page's own model, not yours)" };
    }
    testSets ??= fetch(TEST_SETS).then((r) => {
      if (!r.ok) throw new Error(`heed: cannot fetch ${TEST_SETS}: HTTP ${r.status}`);
      return r.json();
    });
    const sets = await testSets.catch((e) => {
      testSets = null;  // a later render tries again
      throw e;
    });
    const d = sets.directions[sel.options.to === "en" ? "de-en" : "en-de"];
    return { roles: d.roles, note: `${d.sentences} sentences of ${sets.sets.join(" and ")}` };
  }

  function header() {
    const tr = document.createElement("tr");
    for (const [key, name, tip] of COLUMNS) {
      const th = document.createElement("th");
      th.scope = "col";
      const b = Object.assign(document.createElement("button"), { type: "button", textContent: name, title: tip });
      b.dataset.sort = key;
      th.setAttribute("aria-sort", sort.key === key ? (sort.descending ? "descending" : "ascending") : "none");
      b.addEventListener("click", () => {
        sort = { key, descending: sort.key === key ? !sort.descending : key !== "distance" && key !== "layer" };
        ctx.render();
      });
      th.append(b);
      tr.append(th);
    }
    return tr;
  }

  function open(row) {
    ctx.open(VIEW_OF[row.kind], { layer: row.layer, head: row.head });
  }

  return {
    async render(sel) {
      current = sel;
      const { roles, note } = await rolesOf(sel);
      if (current !== sel) return;  // a newer render took over
      const order = (a, b) => {
        const x = a[sort.key], y = b[sort.key];
        const c = typeof x === "string" ? x.localeCompare(y) : x - y;
        return sort.descending ? -c : c;
      };
      const rows = flatten(roles).filter((r) => kindFilter.value === "all" || r.kind === kindFilter.value).sort(order);
      table.replaceChildren(header(), ...rows.map((r) => {
        const tr = document.createElement("tr");
        tr.tabIndex = 0;
        tr.title = `Open ${KIND_NAMES[r.kind]}, layer ${r.layer + 1}, head ${r.head + 1}`;
        tr.dataset.kind = r.kind;
        tr.dataset.layer = r.layer;
        tr.dataset.head = r.head;
        tr.append(...COLUMNS.map(([key]) => cell(r, key)));
        tr.addEventListener("click", () => open(r));
        tr.addEventListener("keydown", (e) => {
          if (e.key === "Enter" || e.key === " ") {
            e.preventDefault();
            open(r);
          }
        });
        return tr;
      }));
      root.querySelector("#roles-note").textContent = `Measured over ${note}. Click a head to open it.`;
      table.dataset.scope = scope.value;
    },
  };
}
