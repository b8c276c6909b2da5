// Types of heed's Translator API (translator-api.js): the web's Translator
// interface (W3C WebML CG, "Translator and Language Detector APIs") on a
// heed model.

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

export interface TranslatorAPIOptions extends Omit<CreateOptions, "onProgress"> {
  /** The model's languages until it is loaded (default ["en", "de"], heed's shipped model's); then the model's own. */
  languages?: string[];
}

/** The Translator interface bound to one model, loaded once (on the first create() that needs it) and shared. */
export function createTranslatorAPI(options: TranslatorAPIOptions): { Translator: TranslatorConstructor };

/** Defines target.Translator (default globalThis) only where it has none; returns the Translator in effect there. */
export function install(target: object | undefined, options: TranslatorAPIOptions): TranslatorConstructor;
