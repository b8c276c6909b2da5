// A TypeScript consumer of heed's module, checked with tsc --strict
// against heed.d.ts: every documented option and field is used with its
// type, and the lines marked @ts-expect-error must stay errors.
import { createTranslator } from "../../../build/wasm/dist/heed.js";
import type { Attention, HeadRef, Info, Progress, Result, Sentence, TranslateOptions, Translator }
  from "../../../build/wasm/dist/heed.js";
import { translateElement } from "../../../build/wasm/dist/translate-element.js";
import type { HtmlTranslator, TranslatedElement } from "../../../build/wasm/dist/translate-element.js";

const progress = (p: Progress): string => `${p.loaded}/${p.total}${p.fromCache ? " (cache)" : ""}`;

export async function run(model: string | URL | ArrayBuffer | Uint8Array): Promise<number> {
  const t: Translator = await createTranslator({
    model, onProgress: (p) => console.log(progress(p)), worker: false,
    wasmUrl: new URL("./heed_engine.wasm", import.meta.url), workerUrl: "worker.js", threads: 2,
  });
  const head: HeadRef = { kind: "cross", layer: 1, head: 3 };
  const controller = new AbortController();
  const options: TranslateOptions = {
    to: "de", beam: 4, nbest: 2, lengthPenalty: 0.6, noRepeatNgramSize: 3, repetitionPenalty: 1.2,
    attention: true, prefix: "Ein", logitLens: 5, contributions: true, confidence: true, maskHeads: [head],
    queryKey: { kind: "encoder", layer: 0, head: 1 },
    maxSentenceTokens: 256, maxBatch: 4, maxAttentionBytes: 1 << 20, maxInputBytes: 1 << 16,
    signal: controller.signal, html: false, positions: "shuffled",
    switchOff: [{ sublayer: "cross", layer: 1 }],
    onSentence: (s: Sentence, i: number) => console.log(i, s.segment, s.text),
  };
  const r: Result = await t.translate("A dog runs.", options);
  const a: Attention | undefined = r.attention;
  const weight: number = a ? a.cross[0][0][0] + a.rollout[0][0] + a.shapes.cross[2] : 0;
  const added: number = a?.contributions ? a.contributions.decoder[0][0][0] + a.contributions.sublayerNorms[0][0] +
    a.contributions.layer.cross[0][0] : 0;
  const qk: number = a?.queryKey ? a.queryKey.queries[0][0] * a.queryKey.keys[0][0] + a.queryKey.layer : 0;
  const qkKind: "encoder" | "decoder" | "cross" | undefined = a?.queryKey?.kind;
  const s: Sentence = r.sentences[0];
  const lens: string = s.logitLens ? s.logitLens.top[0][0][0].piece : "";
  const sure: number = (s.tokenProbabilities?.[0] ?? 0) + (s.entropies?.[0] ?? 0) + s.logProb + s.score;
  const alternative: string = r.alternatives?.[0][0].piece ?? "";
  const best: string = r.nbest[0].text + r.sourceTokens.join(" ") + r.targetTokens.join(" ");
  const ms: number = r.timings.totalMs + r.timings.decodeMs + r.timings.encodeMs + r.timings.tokenizeMs;
  const parts = await t.split("A dog. A cat.");
  const kept: boolean = parts[0].sentence;
  const pe = await t.positionalEncoding(10);
  const value: number = pe.values[pe.dims];
  const info: Info = t.info();
  const sizes: number = info.config.d_model + info.config.heads + info.parameters + info.fileSize + info.heapBytes + info.threads;
  const tag: string = info.config.target_tags[info.languages[0]] ?? "";
  t.dispose();
  return weight + added + qk + (qkKind?.length ?? 0) + lens.length + sure + alternative.length + best.length + ms + value + sizes + tag.length +
    (kept ? 1 : 0) + r.targetTokenCount;
}

// What the types must refuse.
export async function refused(t: Translator): Promise<void> {
  // @ts-expect-error the beam is a number
  await t.translate("x", { beam: "4" });
  // @ts-expect-error there is no such option
  await t.translate("x", { bogus: true });
  const html: HtmlTranslator = {
    translate: async (text, o) => (await t.translate(text, { to: "de", html: o.html, signal: o.signal })).text,
  };
  const inPlace: TranslatedElement = translateElement(document.body, html, { observe: true });
  await inPlace.done;
  const showing: "translation" | "original" = inPlace.showing;
  inPlace.toggle();
  // @ts-expect-error positions are on, off or shuffled
  await t.translate("x", { positions: "sideways" });
  // @ts-expect-error a head's kind is encoder, decoder or cross
  await t.translate("x", { maskHeads: [{ kind: "self", layer: 0, head: 0 }] });
  // @ts-expect-error one head, not a list
  await t.translate("x", { queryKey: [{ kind: "cross", layer: 0, head: 0 }] });
  // @ts-expect-error the text is a string
  await t.translate(42);
  // @ts-expect-error attention maps are Float32Arrays, not numbers
  const n: number = (await t.translate("x")).attention!.cross[0][0];
  // @ts-expect-error the config's sizes are numbers
  const d: string = t.info().config.d_model;
  // @ts-expect-error threads is a count
  await createTranslator({ model, threads: "auto" });
  void n;
  void d;
  void showing;
}
