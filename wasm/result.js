// What heed.js makes of the engine's results: attention and the logit lens
// nested by layer and head (views of one buffer per kind), the whole
// text's fields, and the buffers to transfer from a worker.

// attention.encoder[layer][head] -> Float32Array(rows * cols), views of one
// buffer per kind.
function splitAttention(a) {
  if (!a) return undefined;
  const split = (flat, layers, rows, cols) => {
    const out = [];
    for (let l = 0; l < layers; ++l) {
      const heads = [];
      for (let h = 0; h < a.heads; ++h) {
        const at = (l * a.heads + h) * rows * cols;
        heads.push(flat.subarray(at, at + rows * cols));
      }
      out.push(heads);
    }
    return out;
  };
  const perLayer = (flat, layers, size) =>
    Array.from({ length: layers }, (_, l) => flat.subarray(l * size, (l + 1) * size));
  const S = a.source, T = a.target;
  return {
    encoder: split(a.encoder, a.encoderLayers, S, S),
    decoder: split(a.decoder, a.decoderLayers, T, T),
    cross: split(a.cross, a.decoderLayers, T, S),
    rollout: Array.from({ length: a.encoderLayers }, (_, l) => a.rollout.subarray(l * S * S, (l + 1) * S * S)),
    roles: a.roles,
    ...(a.encoderContributions && { contributions: {
      encoder: split(a.encoderContributions, a.encoderLayers, S, S),
      decoder: split(a.decoderContributions, a.decoderLayers, T, T),
      cross: split(a.crossContributions, a.decoderLayers, T, S),
      sublayerNorms: Array.from({ length: a.decoderLayers }, (_, l) => a.sublayerNorms.subarray(l * T * 4, (l + 1) * T * 4)),
      layer: {
        encoder: perLayer(a.encoderLayerContributions, a.encoderLayers, S * S),
        decoder: perLayer(a.decoderLayerContributions, a.decoderLayers, T * T),
        cross: perLayer(a.crossLayerContributions, a.decoderLayers, T * S),
      },
    } }),
    ...(a.altiEncoder && { alti: splitAlti(a.altiEncoder, a.alti, a) }),
    ...(a.queryKey && { queryKey: splitQueryKey(a.queryKey) }),
    shapes: { encoder: [a.encoderLayers, a.heads, S, S],
              decoder: [a.decoderLayers, a.heads, T, T],
              cross: [a.decoderLayers, a.heads, T, S] },
  };
}

// ALTI+ per layer (encoder[l]: S × S, decoder[l]: T × (S + T)), and each
// step's source contribution: the last layer's first S columns summed.
function splitAlti(encoder, decoder, { encoderLayers, decoderLayers, source: S, target: T }) {
  const perLayer = (flat, layers, size) =>
    Array.from({ length: layers }, (_, l) => flat.subarray(l * size, (l + 1) * size));
  const last = decoder.subarray((decoderLayers - 1) * T * (S + T));
  const sourceShare = new Float32Array(T);
  for (let t = 0; t < T; ++t) {
    for (let j = 0; j < S; ++j) sourceShare[t] += last[t * (S + T) + j];
  }
  return { encoder: perLayer(encoder, encoderLayers, S * S),
           decoder: perLayer(decoder, decoderLayers, T * (S + T)), sourceShare };
}

// queryKey: { kind: "encoder" | "decoder" | "cross", layer, head, queries,
// keys }, queries[i] and keys[j] Float32Array(headDim) views of one buffer.
function splitQueryKey({ kind, layer, head, headDim, queries, keys }) {
  const rows = (flat) => Array.from({ length: flat.length / headDim },
    (_, i) => flat.subarray(i * headDim, (i + 1) * headDim));
  return { kind: ["encoder", "decoder", "cross"][kind], layer, head,
           queries: rows(queries), keys: rows(keys) };
}

// erasure.effect as rows: effect[t] = Float32Array(S), views of one buffer.
function splitErasure({ mode, effect }, S) {
  return { mode, effect: Array.from({ length: S ? effect.length / S : 0 },
    (_, t) => effect.subarray(t * S, (t + 1) * S)) };
}

// The logit lens as top[layer][step] = [{ piece, probability }] (k each)
// and tokenProbabilities[layer] = Float32Array(steps).

function nestLens({ layers, steps, k, pieces, probabilities, tokenProbabilities }) {
  const top = [], tokens = [];
  for (let l = 0; l < layers; ++l) {
    const row = [];
    for (let i = 0; i < steps; ++i) {
      const at = (l * steps + i) * k;
      row.push(Array.from({ length: k }, (_, j) => ({ piece: pieces[at + j], probability: probabilities[at + j] })));
    }
    top.push(row);
    tokens.push(tokenProbabilities.subarray(l * steps, (l + 1) * steps));
  }
  return { top, tokenProbabilities: tokens };
}

// The distinct ArrayBuffers under a result, to transfer them from the
// worker instead of copying them.
export function buffersOf(value, found = new Set()) {
  if (ArrayBuffer.isView(value)) found.add(value.buffer);
  else if (Array.isArray(value)) value.forEach((v) => buffersOf(v, found));
  else if (value && typeof value === "object") Object.values(value).forEach((v) => buffersOf(v, found));
  return [...found];
}

// A sentence as the engine returns it, with its attention and lens nested.
export function prepareSentence(s) {
  s.attention = splitAttention(s.attention);
  if (s.logitLens) s.logitLens = nestLens(s.logitLens);
  if (s.erasure) s.erasure = splitErasure(s.erasure, s.sourcePieces.length);
  return s;
}

// The fields summarise() derives from the sentences.
export const SUMMARISED = ["sourceTokens", "targetTokens", "score", "nbest", "attention", "alternatives"];

// Adds the whole text's fields to a result: its tokens across sentences and
// the sum of the sentences' scores (sentences are translated independently).
// n-best lists, attention and alternatives belong to one sentence: at top
// level they are the sentence's when the text is one sentence, and are
// read from r.sentences[i] otherwise.
export function summarise(r) {
  const { sentences } = r;
  r.sourceTokens = sentences.flatMap((s) => s.sourcePieces);
  r.targetTokens = sentences.flatMap((s) => s.targetPieces);
  r.score = sentences.reduce((sum, s) => sum + s.score, 0);
  if (sentences.length === 1) {
    const [s] = sentences;
    r.nbest = s.nbest;
    if (s.attention) {
      r.attention = s.attention;
      r.alternatives = s.alternatives;
    }
  } else {
    r.nbest = [{ text: r.text, score: r.score, pieces: r.targetTokens }];
  }
  return r;
}
