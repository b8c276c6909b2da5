// Types of heed's ES module (heed.js).

export interface Progress { loaded: number; total: number }

export interface CreateOptions {
  /** URL (fetched), path (Node), ArrayBuffer or Uint8Array of a .heed file. */
  model: string | URL | ArrayBuffer | Uint8Array;
  onProgress?: (p: Progress) => void;
  /** Run the engine in a module Web Worker (default: true in browsers). */
  worker?: boolean;
}

export interface HeadRef {
  kind: "encoder" | "decoder" | "cross" | 0 | 1 | 2;
  layer: number;
  head: number;
}

export interface TranslateOptions {
  /** Target language code, e.g. "de"; required for multilingual models. */
  to?: string;
  /** Beam size (1: greedy). Default 4. */
  beam?: number;
  nbest?: number;
  lengthPenalty?: number;
  /** Return every attention map. Default false. */
  attention?: boolean;
  /** Heads whose output is zeroed for this request. */
  maskHeads?: HeadRef[];
  maxSentenceTokens?: number;
  /** Cancels the request if it has not started yet (AbortError). */
  signal?: AbortSignal;
}

/** attention.encoder[layer][head] is a Float32Array of rows × cols, row-major. */
export interface Attention {
  encoder: Float32Array[][];
  decoder: Float32Array[][];
  cross: Float32Array[][];
  shapes: { encoder: number[]; decoder: number[]; cross: number[] };
}

export interface Sentence {
  source: string;
  sourcePieces: string[];
  targetPieces: string[];
  text: string;
  score: number;
  nbest: { text: string; score: number; pieces: string[] }[];
  attention?: Attention;
  /** Per target token: the step's best next tokens with probabilities. */
  alternatives?: { piece: string; probability: number }[][];
}

export interface Result {
  text: string;
  sentences: Sentence[];
  targetTokens: number;
  timings: { tokenizeMs: number; encodeMs: number; decodeMs: number; totalMs: number };
}

export interface Info {
  config: Record<string, unknown>;
  languages: string[];
  parameters: number;
  fileSize: number;
  /** Current size of the WebAssembly heap in bytes. */
  heapBytes: number;
}

export interface Translator {
  translate(text: string, options?: TranslateOptions): Promise<Result>;
  info(): Info;
  dispose(): void;
}

export function createTranslator(options: CreateOptions): Promise<Translator>;
