// The guided tour: seven short steps through the sentence on screen, from
// its pieces to the beam, each with the live numbers of this translation
// and the view that shows it opened and outlined. ← and → (or the buttons)
// move, Esc closes; it reads the same at 390 px.

const fmt = (p) => `${(100 * p).toFixed(0)}%`;
const word = (piece) => piece.replaceAll("\u2581", "") || "·";

// The head-averaged attention of kind `kind` at `layer`: rows × cols.
function averaged(a, kind, layer) {
  const [, heads, rows, cols] = a.shapes[kind];
  const out = new Float32Array(rows * cols);
  for (let h = 0; h < heads; ++h) {
    a[kind][layer][h].forEach((v, i) => { out[i] += v / heads; });
  }
  return { out, rows, cols };
}

// (row, col, weight) of the strongest off-diagonal cell.
function strongest({ out, rows, cols }, skipDiagonal) {
  let best = { i: 0, j: 0, w: -1 };
  for (let i = 0; i < rows; ++i) {
    for (let j = 0; j < cols; ++j) {
      if (skipDiagonal && i === j) continue;
      if (out[i * cols + j] > best.w) best = { i, j, w: out[i * cols + j] };
    }
  }
  return best;
}

/** The tour's steps for sentence `s` of a translation with `options`. */
export function tourSteps(s, config, options) {
  const a = s.attention, src = s.sourcePieces, tgt = s.targetPieces;
  const d = config.d_model, L = config.encoder_layers, H = config.heads;
  const enc = strongest(averaged(a, "encoder", 0), true);
  const lastCross = a.shapes.cross[0] - 1;
  const cross = averaged(a, "cross", lastCross);
  const firstTarget = strongest({ out: cross.out.subarray(0, cross.cols), rows: 1, cols: cross.cols }, false);
  const p0 = s.tokenProbabilities?.[0], e0 = s.entropies?.[0];
  const alts = (s.alternatives?.[0] ?? []).slice(0, 3).map((x) => `${word(x.piece)} ${fmt(x.probability)}`);
  const beam = options.beam ?? 4;
  return [
    { title: "Pieces", view: "alignment",
      text: `The model does not read words but ${src.length} pieces from its SentencePiece vocabulary ` +
        `of ${config.source_vocab}: ${src.map(word).join(" · ")}. The first, ${src[0]}, tells it which ` +
        `language to write; the last, </s>, ends the sentence. A "▁" (shown ·) starts a word.` },
    { title: "Embeddings and positions", view: "positions",
      text: `Each piece becomes a vector of ${d} numbers (its row of the embedding table, times √${d}), ` +
        `and a pattern of sines and cosines that depends only on its position is added: attention itself ` +
        `does not see order. Positions ${src.length - 1} and 0 differ in every dimension; neighbours differ little.` },
    { title: "Encoder self-attention", view: "encoder", layer: 0, head: "mean",
      text: `${L} encoder layers, each with ${H} heads, let every piece look at every other. In layer 1, ` +
        `averaged over its heads, "${word(src[enc.i])}" looks most at "${word(src[enc.j])}" ` +
        `(${fmt(enc.w)} of its attention, leaving itself aside). Pick a head above to see each one's habit.` },
    { title: "The causal mask", view: "decoder", layer: 0, head: "mean",
      text: `The decoder writes ${tgt.length} pieces one at a time, and each may look only at the pieces ` +
        `already written: the hatched triangle is what it cannot see yet. Training on whole sentences ` +
        `works because of this mask.` },
    { title: "Cross-attention", view: "alignment", layer: lastCross, head: "mean",
      text: `Cross-attention is where the decoder reads the source. Writing "${word(tgt[0])}", the last ` +
        `layer's heads looked most at "${word(src[firstTarget.j])}" (${fmt(firstTarget.w)}). ` +
        `Attention is a hint, not proof: Contributions holds it against erasing each source piece.` },
    { title: "The output distribution", view: "steps",
      text: `At each step the decoder's vector is compared with all ${config.target_vocab} pieces, and a ` +
        `softmax turns the scores into probabilities. At step 1, "${word(tgt[0])}" got ` +
        `${p0 === undefined ? "its share" : fmt(p0)}` +
        (alts.length ? ` (candidates: ${alts.join(", ")})` : "") +
        (e0 === undefined ? "." : `; the entropy, ${e0.toFixed(2)} nats, says how spread the choice was.`) },
    { title: "The beam", view: "steps",
      text: beam === 1
        ? "With beam size 1 the decoder took the most probable piece at every step (greedy search). " +
          "A larger beam keeps several partial translations and can recover from an early choice."
        : `With beam size ${beam} the decoder kept the ${beam} most probable partial translations at every ` +
          `step and returned the best finished one, score ${s.score.toFixed(2)} (its log-probability ` +
          `${s.logProb.toFixed(2)}, divided by a length penalty so longer sentences are not punished). ` +
          `Click another candidate in Step by step to force it and see the rest change.` },
  ];
}

/**
 * Wires the tour to its panel. explorer: createExplorer's public face;
 * config(): the model config; returns { open() }.
 */
export function createTour(explorer, config) {
  const $ = (id) => document.getElementById(id);
  const panel = $("tour");
  let steps = [], at = 0;

  function outline(view) {
    for (const v of document.querySelectorAll(".view.tour-focus")) v.classList.remove("tour-focus");
    const shown = $(`view-${view}`);
    shown?.classList.add("tour-focus");
    // To the top of the screen: the panel covers the bottom on a phone.
    shown?.scrollIntoView({ block: "start" });
  }

  async function show(i) {
    at = Math.max(0, Math.min(steps.length - 1, i));
    const step = steps[at];
    $("tour-count").textContent = `${at + 1} of ${steps.length}`;
    $("tour-title").textContent = step.title;
    $("tour-text").textContent = step.text;
    $("tour-back").disabled = at === 0;
    $("tour-next").textContent = at === steps.length - 1 ? "Done" : "Next";
    panel.dataset.step = String(at);
    await explorer.restore({ view: step.view,
      layer: step.layer === undefined ? undefined : String(step.layer), head: step.head });
    outline(step.view);
  }

  function close() {
    panel.hidden = true;
    outline("");
    $("tour-open").focus();
  }

  $("tour-back").addEventListener("click", () => show(at - 1));
  $("tour-next").addEventListener("click", () => (at === steps.length - 1 ? close() : show(at + 1)));
  $("tour-close").addEventListener("click", close);
  document.addEventListener("keydown", (e) => {
    if (panel.hidden || e.target.closest?.("textarea, input, select")) return;
    if (e.key === "ArrowRight") show(at + 1);
    else if (e.key === "ArrowLeft") show(at - 1);
    else if (e.key === "Escape") close();
    else return;
    e.preventDefault();
  });

  return {
    open() {
      const { sentence, options } = explorer.current();
      if (!sentence?.attention) return;
      steps = tourSteps(sentence, config(), options);
      panel.hidden = false;
      show(0);
      $("tour-next").focus();
    },
  };
}
