// Reading one sentence's attention, as heed.js returns it: for each kind,
// attention[kind][layer][head] is a Float32Array of rows × cols.
//   encoder: source × source (query token attends to key token)
//   decoder: target × decoder input (input 0 is <s>, input j is target j-1)
//   cross:   target × source

export const KINDS = ["cross", "encoder", "decoder"];

export const KIND_NAMES = {
  encoder: "encoder self-attention",
  decoder: "decoder masked self-attention",
  cross: "cross-attention",
};

/** [rows, cols] of one map of `kind`. */
export function shape(attention, kind) {
  const s = attention.shapes[kind];
  return [s[2], s[3]];
}

export function layers(attention, kind) {
  return attention.shapes[kind][0];
}

export function heads(attention) {
  return attention.shapes.encoder[1];
}

/**
 * The map of one head, or with head "mean" the average over heads (what
 * the layer's heads attend to together).
 */
export function pick(attention, kind, layer, head) {
  const maps = attention[kind][layer];
  if (head !== "mean") return maps[head];
  const out = new Float32Array(maps[0].length);
  for (const m of maps) for (let i = 0; i < m.length; ++i) out[i] += m[i];
  for (let i = 0; i < out.length; ++i) out[i] /= maps.length;
  return out;
}

/** Row and column labels of `kind` for a sentence. */
export function labels(sentence, kind) {
  const src = sentence.sourcePieces, tgt = sentence.targetPieces;
  const decoderInputs = ["<s>", ...tgt.slice(0, -1)];
  if (kind === "encoder") return { rows: src, cols: src };
  if (kind === "decoder") return { rows: tgt, cols: decoderInputs };
  return { rows: tgt, cols: src };
}

/** A piece as shown: SentencePiece's word-start mark ▁ made visible but light. */
export function display(piece) {
  return piece.replace(/\u2581/g, "\u00b7");
}

export function max(m) {
  let v = 0;
  for (const x of m) if (x > v) v = x;
  return v;
}
