/** Anything that translates HTML: a translator of heed/translator-api, for one. */
export interface HtmlTranslator {
  translate(input: string, options: { html: true; signal?: AbortSignal }): Promise<string>;
}

export interface TranslateElementOptions {
  /** Also translate what is added to the subtree, or whose text changes, later (MutationObserver). */
  observe?: boolean;
  /** Aborts the translations under way and stops observing. */
  signal?: AbortSignal;
  /** Called for a block that could not be translated; it keeps its original. */
  onError?: (error: unknown, block: Element) => void;
}

export interface TranslatedElement {
  /** Resolves when every block found so far is translated (replaced after each observed change). */
  done: Promise<unknown>;
  readonly showing: "translation" | "original";
  showOriginal(): void;
  showTranslation(): void;
  toggle(): void;
  /** Stops observing and ends the translations under way; what is shown stays. */
  stop(): void;
}

/** Translates root's text in place, block by block, inline markup kept (heed's HTML mode). */
export function translateElement(root: Element, translator: HtmlTranslator,
                                 options?: TranslateElementOptions): TranslatedElement;
