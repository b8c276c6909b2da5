// Types of heed's ES module (heed.js).

/** Model download progress; fromCache when the browser's kept copy is read (still current, or offline). */
export interface Progress { loaded: number; total: number; fromCache?: boolean }

export interface CreateOptions {
  /** URL (fetched), path (Node), ArrayBuffer or Uint8Array of a .heed file. */
  model: string | URL | ArrayBuffer | Uint8Array;
  onProgress?: (p: Progress) => void;
  /**
   * Run the engine on a worker: a module Web Worker in browsers (the
   * default there), a worker_threads Worker in Node (default false: the
   * calling thread). On a worker the caller's thread never blocks and an
   * AbortSignal stops a running request.
   */
  worker?: boolean;
  /** Where the engine (heed_engine.wasm) is served, when not beside heed.js (a URL, or a path in Node). */
  wasmUrl?: string | URL;
  /** Where worker.js is served, when not beside heed.js; it imports heed.js from beside itself. */
  workerUrl?: string | URL;
  /**
   * Threads a paragraph's batches are decoded on, in [1, 64]; the result
   * does not depend on it. Above 1 the threaded engine
   * (heed_engine_threads.*, beside heed_engine.wasm) runs, which needs
   * SharedArrayBuffer: a cross-origin isolated page (COOP + COEP headers),
   * or Node. Default: min(4, cores) on such a page, 1 elsewhere and in Node.
   * Where the threaded engine cannot load, one thread runs; info().threads
   * says which. A call of one sentence runs on the single-threaded engine
   * (a second thread cannot share it, and the threaded engine runs it no
   * faster, on some CPUs slower); the threaded engine is fetched and loads
   * its own copy of the model on the first call of several sentences or
   * HTML. Until then info().threads gives the threads asked for; should the
   * threaded engine then fail to start, it gives 1 from then on.
   * Result.threads says which ran.
   */
  threads?: number;
}

export interface HeadRef {
  kind: "encoder" | "decoder" | "cross" | 0 | 1 | 2;
  layer: number;
  head: number;
}

export interface SublayerRef {
  sublayer: "encoder-self" | "encoder-ffn" | "decoder-self" | "cross" | "decoder-ffn";
  layer: number;
}

/** HTML mode: one inline element and where heed put it. */
export interface HtmlTag {
  /** Its start tag, verbatim. */
  tag: string;
  /** The source text it wrapped, tags out. */
  source: string;
  /** The translation's words it wraps now ("" where heed found none). */
  target: string;
}

export interface TranslateOptions {
  /** Target language code, e.g. "de"; required for multilingual models. */
  to?: string;
  /** Beam size (1: greedy). Default 4. */
  beam?: number;
  nbest?: number;
  /** GNMT length penalty α: a hypothesis scores log P / ((5 + length) / 6)^α (default 2, chosen on the dev sets; 0: none). */
  lengthPenalty?: number;
  /** No n-gram of this many tokens occurs twice in a translation, nor any token three times in a row (default 3, chosen on the dev sets; 0: off). */
  noRepeatNgramSize?: number;
  /** Log-probabilities of tokens already produced are multiplied by this (1: off, the default; > 1 discourages repeats). */
  repetitionPenalty?: number;
  /**
   * Where a translation writes the unknown piece (a character the model's
   * vocabulary lacks: "ø", "<"), write the source's text of the unknown
   * piece its cross-attention weighs most instead, as SentencePiece
   * normalises it, or nothing where the source has none (default true);
   * false keeps SentencePiece's " ⁇ ".
   */
  copyUnknown?: boolean;
  /** Return every attention map. Default false. */
  attention?: boolean;
  /** The translation must start with this text (CTranslate2's target_prefix); the search continues after it. The text must be one sentence. */
  prefix?: string;
  /** The same as target pieces (e.g. a sentence's targetPieces up to a step, then another alternative). */
  prefixPieces?: string[];
  /** k > 0: the logit lens, each decoder layer's top k pieces at each step (sentence.logitLens). Default 0. */
  logitLens?: number;
  /** Also return the norm-based contributions (attention.contributions); implies attention. Default false. */
  contributions?: boolean;
  /** Also return ALTI+ (attention.alti); implies attention. Default false. */
  alti?: boolean;
  /** Return each target piece's probability and its step's entropy (tokenProbabilities, entropies). Default false. */
  confidence?: boolean;
  /** Heads whose output is zeroed for this request. */
  maskHeads?: HeadRef[];
  /**
   * Sublayers whose output is zeroed for this request (post-norm: x =
   * LayerNorm(x)); they still run, so their attention is still returned.
   */
  switchOff?: SublayerRef[];
  /**
   * "on" (default); "off": no positional encoding in the encoder and the
   * decoder; "shuffled": the source tokens' positions permuted (a fixed
   * permutation per source length), the decoder's as trained.
   */
  positions?: "on" | "off" | "shuffled";
  /**
   * Erasure attribution (sentence.erasure): for each target piece, how much
   * its log-probability falls, under teacher forcing of the same
   * translation, when one source piece is taken out ("remove") or replaced
   * by <unk> ("unk"). One batched forced pass per sentence. Default "off".
   */
  erasure?: "off" | "remove" | "unk";
  /** Word alignments of the text (result.alignment); plain text only, not with html. */
  alignments?: boolean;
  /**
   * The text is an HTML fragment: tags kept where they stand, text
   * translated block by block (p, li, td, div, br, ... bound sentences),
   * inline elements (a, b, em, span, ...) put back around the target words
   * aligned to the source words they wrapped. Every tag of the result is
   * one of the input's, byte for byte; script, style and translate="no"
   * content is left as it is.
   */
  html?: boolean;
  /** One head whose query and key vectors to return (attention.queryKey); implies attention. */
  queryKey?: HeadRef;
  maxSentenceTokens?: number;
  /** Sentences decoded together (default 32). */
  maxBatch?: number;
  /** With attention: the most bytes the maps of one text may take (default 256 MiB); a larger text is refused before decoding. */
  maxAttentionBytes?: number;
  /** The longest text accepted, in UTF-8 bytes (default 1 MiB, at most 2^30); a longer one is refused. */
  maxInputBytes?: number;
  /**
   * Cancels the request (AbortError). A queued request never starts; a
   * running one stops at its next decoding step when the engine runs on a
   * worker (through shared memory where the page is cross-origin isolated,
   * else by restarting the worker) or when it is aborted from `onSentence`.
   */
  signal?: AbortSignal;
  /**
   * Called with each sentence as soon as its batch is decoded, in order,
   * with its index among the result's sentences; the result then holds the
   * same sentences. What it throws rejects the request.
   */
  onSentence?: (sentence: Sentence, index: number) => void;
}

/**
 * What one head habitually looks at over its rows (queries). Row i's position
 * p(i) is i in self-attention and the diagonal i·(S−1)/(T−1) in cross-attention.
 */
export interface HeadRole {
  /** Mean over rows of the largest weight. */
  confidence: number;
  /** Shares of rows whose largest weight is on the token at p(i) − 1, p(i), p(i) + 1. */
  previous: number;
  same: number;
  next: number;
  /** Share of rows whose largest weight is on the rarest token the row sees. */
  rare: number;
  /** Share of rows whose largest weight is on the source EOS (decoder: its BOS input). */
  boundary: number;
  /** Mean over rows of Σ_j α_ij |j − p(i)|, in tokens. */
  distance: number;
  /** Rows counted. */
  rows: number;
  /** "previous token", "same token", "next token" (≥ 90% of rows), "mostly …" (≥ 60%), "rare token", "boundary" or "". */
  role: string;
}

/** attention.encoder[layer][head] is a Float32Array of rows × cols, row-major. */
export interface Attention {
  encoder: Float32Array[][];
  decoder: Float32Array[][];
  cross: Float32Array[][];
  /** Attention rollout of the encoder: rollout[layer] is S × S, row-major; rows sum to 1. */
  rollout: Float32Array[];
  /** Each head's habits on this sentence: roles.encoder[layer][head] (docs/heads.md). */
  roles: { encoder: HeadRole[][]; decoder: HeadRole[][]; cross: HeadRole[][] };
  /** With contributions: α_ij · ‖f_h(x_j)‖ per layer and head, shaped as encoder, decoder and cross. */
  contributions?: {
    encoder: Float32Array[][];
    decoder: Float32Array[][];
    cross: Float32Array[][];
    /** sublayerNorms[layer]: T × 4 — ‖x‖ entering self-attention, ‖what it adds‖, ‖x‖ entering cross-attention, ‖what it adds‖. */
    sublayerNorms: Float32Array[];
    /** ‖Σ_h α_ij f_h(x_j)‖: what token j adds through the whole layer; layer.encoder[l] is S × S, decoder[l] T × T, cross[l] T × S. */
    layer: { encoder: Float32Array[]; decoder: Float32Array[]; cross: Float32Array[] };
  };
  /**
   * With alti: ALTI+ (Ferrando et al. 2022), contributions through every
   * attention block's heads, residual and LayerNorm, rolled out through the
   * layers. encoder[l] (S × S): what encoder state i after layer l draws on
   * source piece j. decoder[l] (T × (S + T)): what decoding step i draws on
   * each source piece (first S columns) and each decoder input (BOS, then
   * the target pieces; next T). Rows sum to 1. sourceShare[i]: the last
   * layer's source columns summed.
   */
  alti?: { encoder: Float32Array[]; decoder: Float32Array[]; sourceShare: Float32Array };
  /** With queryKey: that head's projected queries and keys; its attention is softmax_j(q_i · k_j / √headDim). */
  queryKey?: {
    kind: "encoder" | "decoder" | "cross";
    layer: number;
    head: number;
    /** queries[i]: Float32Array(headDim); S rows for the encoder, else T. */
    queries: Float32Array[];
    /** keys[j]: Float32Array(headDim); T for the decoder, else S. */
    keys: Float32Array[];
  };
  shapes: { encoder: number[]; decoder: number[]; cross: number[] };
}

export interface Sentence {
  /** The sentence as given (or a piece of a sentence too long for the model). */
  source: string;
  /** Index of its segment in `split(text)`. */
  segment: number;
  sourcePieces: string[];
  targetPieces: string[];
  text: string;
  /** Log-probability with the length penalty applied (what beam search ranks by). */
  score: number;
  /** Total log-probability of the target tokens. */
  logProb: number;
  /** With confidence: each target piece's probability under the model at its step. */
  tokenProbabilities?: Float32Array;
  /** With confidence: the entropy (nats) of each step's next-piece distribution. */
  entropies?: Float32Array;
  /** With logitLens k: decoder layer l's output at step i projected through the output layer. */
  logitLens?: {
    /** top[layer][step]: the k most probable pieces at that layer. */
    top: { piece: string; probability: number }[][][];
    /** tokenProbabilities[layer][step]: that layer's probability of the piece produced at the step. */
    tokenProbabilities: Float32Array[];
  };
  nbest: { text: string; score: number; logProb: number; pieces: string[];
           tokenProbabilities?: Float32Array; entropies?: Float32Array }[];
  attention?: Attention;
  /**
   * With erasure: effect[t][j] = log p(target piece t) − the same with source
   * piece j erased (0 for the tag and EOS, which are not).
   */
  erasure?: { mode: "remove" | "unk"; effect: Float32Array[] };
  /** Per target token: the step's best next tokens with probabilities. */
  alternatives?: { piece: string; probability: number }[][];
}

/**
 * The translation of a text. The text is split into sentences, each
 * translated on its own (r.sentences); the top-level fields describe the
 * whole text. nbest, attention and alternatives are the sentence's when
 * the text is one sentence; for a paragraph read them per sentence (nbest
 * then holds the one joined best translation).
 */
export interface Result {
  text: string;
  /** Source pieces of every sentence, in order. */
  sourceTokens: string[];
  /** Target pieces of every sentence, in order (each ends with </s> when produced). */
  targetTokens: string[];
  /** Number of target tokens generated, end-of-sentence included. */
  targetTokenCount: number;
  /** Sum of the sentences' scores (length-normalised log-probabilities). */
  score: number;
  nbest: { text: string; score: number; logProb?: number; pieces: string[] }[];
  attention?: Attention;
  alternatives?: { piece: string; probability: number }[][];
  sentences: Sentence[];
  /** With { html: true }: every inline element of the text, in order, and the words it was put around. */
  tags?: HtmlTag[];
  /** Threads this call was decoded on: 1 for one sentence, the translator's threads for more. */
  threads: number;
  /**
   * With { alignments: true }: [source word, target word] pairs, words counted
   * from 0 at white space in the text and its translation (Pharaoh i-j), from
   * the cross-attention that agrees best with erasure (docs/faithfulness.md).
   */
  alignment?: [number, number][];
  timings: { tokenizeMs: number; encodeMs: number; decodeMs: number; totalMs: number };
}

/** The model's configuration (as `heed info` prints it). */
export interface ModelConfig {
  d_model: number;
  heads: number;
  d_ff: number;
  encoder_layers: number;
  decoder_layers: number;
  source_vocab: number;
  target_vocab: number;
  activation: "relu" | "gelu" | "gelu_tanh" | "silu";
  pre_norm: boolean;
  layer_norm_eps: number;
  scale_embeddings: boolean;
  shared_embeddings: boolean;
  tied_output: boolean;
  output_bias: boolean;
  pad_id: number;
  bos_id: number;
  eos_id: number;
  unk_id: number;
  /** Target language code → the source piece that asks for it, e.g. { de: "<2de>" }. */
  target_tags: Record<string, string>;
  trained_max_length: number;
  /** Sinusoid layout: the paper's interleaved sin/cos, or Marian's halves. */
  positions: "interleaved" | "halves";
  /** The decoder's first input: the bos_id embedding, or Marian's zero vector. */
  decoder_start: "bos" | "zeros";
}

export interface Info {
  config: ModelConfig;
  languages: string[];
  parameters: number;
  fileSize: number;
  /** Size of the WebAssembly heap in bytes (on a worker: as of its last reply). */
  heapBytes: number;
  /** Threads translations are decoded on (1: the single-threaded engine). */
  threads: number;
}

export interface Translator {
  translate(text: string, options?: TranslateOptions): Promise<Result>;
  /**
   * The text as the translator splits it into sentences; the segments'
   * texts concatenate to the input, and `sentence` is false for the
   * whitespace between sentences. With `onSentence`, a page can lay out
   * a placeholder per segment and fill each as its sentence arrives.
   * Text the model reads as nothing (zero-width or control characters
   * only) is not a sentence: `translate` returns it as it is.
   */
  split(text: string): Promise<{ text: string; sentence: boolean }[]>;
  /**
   * Translates `text` and returns its result as JSON text, written by the
   * engine's one writer: the document the CLI's `--attention-json` writes
   * for a line ({ text, sentences: [...] }, docs/attention.md). Asks for
   * attention itself; `onSentence` is refused (and, in a worker, `signal`).
   */
  exportJson(text: string, options?: TranslateOptions): Promise<string>;
  /**
   * The sinusoidal positional encoding the model adds to its embeddings, at
   * positions 0…positions-1 (at most 4,096): values is (positions, dims), row-major.
   */
  positionalEncoding(positions: number): Promise<{ positions: number; dims: number; values: Float32Array }>;
  info(): Info;
  dispose(): void;
}

export function createTranslator(options: CreateOptions): Promise<Translator>;
