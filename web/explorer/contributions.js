// Contributions tab: for one layer and head (or the layer's average), raw
// attention beside what each token actually adds (norm-weighted, Kobayashi
// et al. 2020) and, for the encoder, the attention rollout through the
// layers (Abnar & Zuidema 2020), for cross-attention the ground truth
// they are measured against: erasure, what removing each source piece
// costs each target piece, and how well each map agrees with it on this
// sentence (Spearman's ρ per target piece); below, each target word's source and
// previous-word shares per decoder layer. Last, ALTI+ (Ferrando et al. 2022):
// contributions through every block, residual and LayerNorm included,
// rolled up to this layer. Each map is scaled to its own
// largest value, so the view compares where the weight goes, not how much.
import { display, labels, pick, shape } from "../views/attention.js";
import { spearman } from "../views/rank.js";
import { css, viridis } from "../views/color.js";
import { layerGrid } from "../views/table.js";
import { drawHeatmap } from "../views/heatmap.js";

// canvases: { raw, weighted, third, alti }; kind "encoder", "decoder" or
// "cross". The third map is the encoder's rollout or cross-attention's
// erasure; the fourth ALTI+ up to the layer.
function drawContributions(canvases, sentence, kind, layer, head, width) {
  const a = sentence.attention;
  const [rows, cols] = shape(a, kind);
  const { rows: rowLabels, cols: colLabels } = labels(sentence, kind);
  const opts = { rowLabels, colLabels, width, causal: kind === "decoder" };
  drawHeatmap(canvases.raw, pick(a, kind, layer, head), rows, cols, opts);
  // One head: α·‖f_h(x)‖. All heads: the layer's ‖Σ_h α f_h(x)‖, not an
  // average, so that heads that cancel show as cancelling.
  const weighted = head === "mean" ? a.contributions.layer[kind][layer]
    : pick({ ...a.contributions, shapes: a.shapes }, kind, layer, head);
  drawHeatmap(canvases.weighted, weighted, rows, cols, opts);
  canvases.third.closest("figure").hidden = kind === "decoder";
  if (kind === "encoder") {
    drawHeatmap(canvases.third, a.rollout[layer], rows, cols, opts);
  } else if (kind === "cross") {  // losses only: a gain shows as 0
    const loss = new Float32Array(rows * cols);
    sentence.erasure.effect.forEach((row, i) => row.forEach((v, j) => { loss[i * cols + j] = Math.max(0, v); }));
    drawHeatmap(canvases.third, loss, rows, cols, opts);
  } else {
    canvases.third.width = 0;  // no third map for the decoder's self-attention
  }
  const alti = altiMap(a.alti, kind, layer, rows, cols);
  drawHeatmap(canvases.alti, alti, rows, cols, opts);
  return { raw: pick(a, kind, layer, head), weighted, alti };
}

// ALTI+ up to `layer` in the shape of `kind`'s attention: the encoder's
// rollout (S × S); for the decoder, its rows' source columns (cross, T × S)
// or its target-prefix columns (decoder self-attention, T × T).
function altiMap(alti, kind, layer, rows, cols) {
  if (kind === "encoder") return alti.encoder[layer];
  const all = alti.decoder[layer], width = all.length / rows;  // S + T
  const first = kind === "cross" ? 0 : width - cols;
  const out = new Float32Array(rows * cols);
  for (let i = 0; i < rows; ++i) out.set(all.subarray(i * width + first, i * width + first + cols), i * cols);
  return out;
}

// The share of each column's total (over rows) in raw and weighted maps,
// and the column whose share falls most: where attention overstates.
function overstated(raw, weighted, rows, cols) {
  const sums = (m) => {
    const s = new Float64Array(cols);
    for (let i = 0; i < rows; ++i) for (let j = 0; j < cols; ++j) s[j] += m[i * cols + j];
    const total = s.reduce((x, y) => x + y, 0) || 1;
    return s.map((x) => x / total);
  };
  const r = sums(raw), w = sums(weighted);
  let worst = 0;
  for (let j = 1; j < cols; ++j) if (r[j] - w[j] > r[worst] - w[worst]) worst = j;
  return { column: worst, raw: r[worst], weighted: w[worst] };
}

// table: per decoder layer (rows, the last on top) and target piece
// (columns), the share of what the layer added that came from the source:
// ‖cross‖ / (‖cross‖ + ‖self‖), from the sublayer norms.
// A last row gives ALTI+'s share of the whole model's output from the source.
function drawShares(table, sentence) {
  const norms = sentence.attention.contributions?.sublayerNorms;
  table.replaceChildren();
  if (!norms) return;
  const cell = (share, title) => {
    const td = document.createElement("td");
    td.textContent = `${Math.round(100 * share)}%`;
    td.style.background = css(viridis(share));
    td.style.color = share > 0.55 ? "black" : "white";
    td.title = `${title}: ${Math.round(100 * share)}% from the source, ` +
      `${Math.round(100 * (1 - share))}% from the words before`;
    return td;
  };
  layerGrid(table, sentence.targetPieces, norms.length, (l, i, piece) => {
    const self = norms[l][i * 4 + 1], cross = norms[l][i * 4 + 3];
    const share = cross / (cross + self || 1);
    const td = cell(share, `${display(piece)}, layer ${l + 1}`);
    td.dataset.share = share.toFixed(4);
    return td;
  });
  const alti = sentence.attention.alti?.sourceShare;
  if (!alti) return;
  const tr = document.createElement("tr"), name = document.createElement("th");
  name.scope = "row";
  name.textContent = "ALTI+";
  name.title = "The whole model, through every block, residual and LayerNorm (Ferrando et al. 2022)";
  tr.append(name, ...sentence.targetPieces.map((piece, i) => {
    const td = cell(alti[i], `${display(piece)}, the whole model (ALTI+)`);
    td.dataset.altiShare = alti[i].toFixed(4);
    return td;
  }));
  table.append(tr);
}

// Mean over target pieces of Spearman's ρ between a map's row and the
// erasure effects, over the source pieces that were erased (not the tag
// or EOS); pieces where either side is constant are left out.
function agreement(map, sentence) {
  const pieces = sentence.sourcePieces, cols = pieces.length;
  const kept = pieces.map((p, j) => j).filter((j) => pieces[j] !== "</s>" && !/^<2.*>$/.test(pieces[j]));
  let sum = 0, n = 0;
  sentence.erasure.effect.forEach((row, i) => {
    const rho = spearman(kept.map((j) => map[i * cols + j]), kept.map((j) => row[j]));
    if (rho !== null) {
      sum += rho;
      ++n;
    }
  });
  return n ? sum / n : null;
}

export function mount(root, ctx) {
  root.querySelector("#contrib-kind").addEventListener("input", ctx.render);

  // Contributions cost an extra pass: the first time the view needs them,
  // the sentence is translated again with them, forced through the same
  // pieces; the view draws from that run throughout.
  async function explained(sel) {
    const shown = sel.sentence;
    if (!shown.explained?.attention?.alti) {  // Compare may have kept one without
      const r = await ctx.translator.translate(shown.source, {
        ...sel.options, attention: true, contributions: true, alti: true, erasure: "remove",
        prefixPieces: shown.targetPieces.filter((p) => p !== "</s>"),
      });
      shown.explained = r.sentences[0];
    }
    return shown.explained;
  }

  return {
    async render(sel) {
      const s = await explained(sel);
      if (!ctx.current(sel)) return;  // another sentence was chosen meanwhile
      const kind = root.querySelector("#contrib-kind").value;
      const l = sel.layer(kind), h = sel.head;
      const w = Math.max(240, (root.clientWidth - 48) / (window.innerWidth > 900 ? 2 : 1));  // 2 × 2
      const maps = drawContributions({ raw: root.querySelector("#canvas-contrib-raw"),
        weighted: root.querySelector("#canvas-contrib-weighted"),
        third: root.querySelector("#canvas-contrib-third"),
        alti: root.querySelector("#canvas-contrib-alti") }, s, kind, l, h, w);
      root.querySelector("#contrib-third-caption").textContent = kind === "cross"
        ? "Erasure: what removing each source word costs" : "Rollout through the layers";
      drawShares(root.querySelector("#contrib-shares"), s);
      root.querySelector("#contrib-weighted-caption").textContent = h === "mean"
        ? "What each token adds through the whole layer" : "What each token adds through this head";
      const [rows, cols] = shape(s.attention, kind);
      const o = overstated(maps.raw, maps.weighted, rows, cols);
      const piece = display(labels(s, kind).cols[o.column]);
      const note = o.raw - o.weighted > 0.02
        ? `Here "${piece}" gets ${(100 * o.raw).toFixed(0)}% of the attention but passes on only ` +
          `${(100 * o.weighted).toFixed(0)}% of what this ${h === "mean" ? "layer" : "head"} adds.`
        : "Here raw attention and what the tokens add agree closely.";
      const rho = (m) => {
        const v = agreement(m, s);
        return v === null ? "—" : v.toFixed(2);
      };
      const faith = root.querySelector("#contrib-faithfulness");
      faith.hidden = kind !== "cross";
      if (kind === "cross") {
        faith.textContent = `Agreement with erasure on this sentence (Spearman's ρ, mean over target words; 1: ` +
          `the same order): raw attention ${rho(maps.raw)}, what tokens add ${rho(maps.weighted)}, ` +
          `ALTI+ ${rho(maps.alti)}.`;
        faith.dataset.raw = rho(maps.raw);
        faith.dataset.weighted = rho(maps.weighted);
        faith.dataset.alti = rho(maps.alti);
      }
      root.querySelector("#contrib-note").textContent = note;
    },
  };
}
