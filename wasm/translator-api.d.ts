// Types of heed's Translator API (translator-api.js): the web's Translator
// and LanguageDetector interfaces (W3C WebML CG, "Translator and Language
// Detector APIs") on heed's models.

import type { CreateOptions } from "./heed.js";

export type Availability = "unavailable" | "downloadable" | "downloading" | "available";

export interface TranslatorCreateCoreOptions {
  /** A BCP 47 language tag, e.g. "en" or "en-US" (best fit to the model's: "en"). */
  sourceLanguage: string;
  targetLanguage: string;
}

/** What create()'s monitor callback receives; downloadprogress is a ProgressEvent with loaded in [0, 1] and total 1. */
export interface CreateMonitor extends EventTarget {
  ondownloadprogress: ((this: CreateMonitor, event: ProgressEvent) => unknown) | null;
  addEventListener(type: "downloadprogress", listener: (this: CreateMonitor, event: ProgressEvent) => unknown,
                   options?: boolean | AddEventListenerOptions): void;
  addEventListener(type: string, listener: EventListenerOrEventListenerObject | null,
                   options?: boolean | AddEventListenerOptions): void;
}

export type CreateMonitorCallback = (monitor: CreateMonitor) => void;

export interface TranslatorCreateOptions extends TranslatorCreateCoreOptions {
  /** Rejects create() with its reason; aborted later, it destroys the translator. */
  signal?: AbortSignal;
  /** Called at once with a CreateMonitor: downloadprogress at 0, while the model loads, and at 1. */
  monitor?: CreateMonitorCallback;
}

export interface TranslatorTranslateOptions {
  /**
   * heed's own: the input is an HTML fragment; the result keeps its tags
   * (inline ones around the aligned words) and translates its text. A
   * stream yields the whole result as one chunk.
   */
  html?: boolean;
  /** Rejects the call (or errors the stream) with its reason. */
  signal?: AbortSignal;
}

export interface Translator {
  /** The model's tag the requested one fits ("en" for "en-US"); for the identity translation, the tag as requested. */
  readonly sourceLanguage: string;
  readonly targetLanguage: string;
  /** The most input a call takes, in UTF-8 bytes (1 MiB); past it, a QuotaExceededError. */
  readonly inputQuota: number;
  /** heed's translation; text with nothing to translate (whitespace, control characters) comes back as it is. */
  translate(input: string, options?: TranslatorTranslateOptions): Promise<string>;
  /** The translation in chunks (not cumulative) that join to translate()'s text, each sentence as it is done. */
  translateStreaming(input: string, options?: TranslatorTranslateOptions): ReadableStream<string>;
  /** The input's size in UTF-8 bytes, as inputQuota counts it. */
  measureInputUsage(input: string, options?: TranslatorTranslateOptions): Promise<number>;
  /** Aborts the calls under way and every later one (AbortError); the model stays, shared by the factory's other translators. */
  destroy(): void;
}

export interface TranslatorConstructor {
  readonly prototype: Translator;
  /** "available" once the model is loaded, "downloading" while it loads, "downloadable" before; "unavailable" for a pair it lacks. */
  availability(options: TranslatorCreateCoreOptions): Promise<Availability>;
  /**
   * A translator for the pair, loading the factory's model on the first call
   * that needs it. Rejects with a TypeError for a missing language, a
   * RangeError for an invalid tag, a NotSupportedError DOMException for a
   * pair the model lacks, an OperationError one when the model cannot load,
   * and the signal's reason when it aborts.
   */
  create(options: TranslatorCreateOptions): Promise<Translator>;
}

export interface LanguageDetectorCreateCoreOptions {
  /** BCP 47 language tags, each fitted to the model's ("en-US" → "en"); one the model does not detect is unavailable. */
  expectedInputLanguages?: Iterable<string>;
}

export interface LanguageDetectorCreateOptions extends LanguageDetectorCreateCoreOptions {
  /** Rejects create() with its reason; aborted later, it destroys the detector. */
  signal?: AbortSignal;
  /** Called at once with a CreateMonitor: downloadprogress at 0, while the model loads, and at 1. */
  monitor?: CreateMonitorCallback;
}

export interface LanguageDetectorDetectOptions {
  /** Rejects the call with its reason. */
  signal?: AbortSignal;
}

export interface LanguageDetectionResult {
  /** A language the model detects ("en", "de"), or "und" for none of them. */
  detectedLanguage: string;
  /** In [0, 1]; the results' confidences sum to 1. */
  confidence: number;
}

export interface LanguageDetector {
  /** The model's tags the expected languages fit, without repeats (frozen); null where create() was given none. */
  readonly expectedInputLanguages: readonly string[] | null;
  /** The most input a call takes, in UTF-8 bytes (1 MiB); past it, a QuotaExceededError. */
  readonly inputQuota: number;
  /**
   * The model's languages by confidence, highest first, stopping once they
   * cover 0.99 and leaving out any less likely than none of them; then
   * "und" with the rest. Text without letters is
   * [{ detectedLanguage: "und", confidence: 1 }].
   */
  detect(input: string, options?: LanguageDetectorDetectOptions): Promise<LanguageDetectionResult[]>;
  /** The input's size in UTF-8 bytes, as inputQuota counts it. */
  measureInputUsage(input: string, options?: LanguageDetectorDetectOptions): Promise<number>;
  /**
   * Aborts the calls under way and every later one (AbortError); the model
   * stays, shared by the factory's other detectors.
   */
  destroy(): void;
}

export interface LanguageDetectorConstructor {
  readonly prototype: LanguageDetector;
  /**
   * "available" once the model is loaded, "downloading" while it loads,
   * "downloadable" before; "unavailable" for a language it does not detect.
   */
  availability(options?: LanguageDetectorCreateCoreOptions): Promise<Availability>;
  /**
   * A detector, loading the factory's language model on the first call.
   * Rejects with a TypeError for options of the wrong type, a RangeError
   * for an invalid tag, a NotSupportedError DOMException for a language
   * the model does not detect, an OperationError one when the model cannot
   * load, and the signal's reason when it aborts.
   */
  create(options?: LanguageDetectorCreateOptions): Promise<LanguageDetector>;
}

export interface TranslatorAPIOptions extends Omit<CreateOptions, "onProgress"> {
  /**
   * The language detector's model (heed's langid JSON, e.g.
   * models/langid-en-de.json): a URL, a path in Node, or its bytes.
   * Without it, no LanguageDetector.
   */
  languageModel?: string | URL | ArrayBuffer | Uint8Array;
  /** The models' languages until each is loaded (default ["en", "de"], heed's shipped models'); then each model's own. */
  languages?: string[];
}

export interface TranslatorAPI {
  Translator: TranslatorConstructor;
  /** Present where the options have a languageModel. */
  LanguageDetector?: LanguageDetectorConstructor;
}

/** The interfaces bound to the models, each loaded once (on the first create() that needs it) and shared. */
export function createTranslatorAPI(
  options: TranslatorAPIOptions & { languageModel: NonNullable<TranslatorAPIOptions["languageModel"]> },
): Required<TranslatorAPI>;
export function createTranslatorAPI(options: TranslatorAPIOptions): TranslatorAPI;

/**
 * Defines target.Translator and, where the options have a languageModel,
 * target.LanguageDetector (default target: globalThis), each only where it
 * has none; returns the Translator in effect there.
 */
export function install(target: object | undefined, options: TranslatorAPIOptions): TranslatorConstructor;
