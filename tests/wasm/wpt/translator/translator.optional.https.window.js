// web-platform-tests ai/translator/translator.optional.https.window.js,
// ported: English to German instead of English to Japanese, no user
// activation (lines marked heed:).
"use strict";

promise_test(async (t) => {
  const languagePair = { sourceLanguage: "en", targetLanguage: "de" };
  // heed: no user activation to refuse; instead the model is not loaded
  // before the first create(), so the pair is "downloadable".
  assert_equals(await Translator.availability(languagePair), "downloadable");
  await createTranslator(languagePair);
  const availability = await Translator.availability(languagePair);
  assert_equals(availability, "available");
  await Translator.create(languagePair);
}, "Translator.create() requires user activation when availability is \"downloadable.");

promise_test(async (t) => {
  const translator = await createTranslator({ sourceLanguage: "en", targetLanguage: "de" });
  assert_equals(await translator.translate("hello"), kHelloTranslated);
}, "Simple Translator.translate() call");

promise_test(async () => {
  const translator = await createTranslator({ sourceLanguage: "en", targetLanguage: "de" });
  const streamingResponse = translator.translateStreaming("hello");
  assert_equals(Object.prototype.toString.call(streamingResponse), "[object ReadableStream]");
  let result = "";
  for await (const chunk of streamingResponse) result += chunk;
  assert_equals(await translator.translate("hello"), kHelloTranslated);
  assert_equals(result, kHelloTranslated);  // heed: the streamed chunks join to the translation too
}, "Simple Translator.translateStreaming() call");

promise_test(async () => {
  const translator = await createTranslator({ sourceLanguage: "en", targetLanguage: "de" });
  const streamingResponse = translator.translateStreaming("hello");
  gc();
  assert_equals(Object.prototype.toString.call(streamingResponse), "[object ReadableStream]");
  let result = "";
  for await (const value of streamingResponse) {
    result += value;
    gc();
  }
  assert_greater_than(result.length, 0, "The result should not be empty.");
}, "Translate Streaming API must continue even after GC has been performed.");

promise_test(async (t) => {
  const translator = await createTranslator({ sourceLanguage: "en", targetLanguage: "de" });
  assert_equals(translator.sourceLanguage, "en");
  assert_equals(translator.targetLanguage, "de");
}, "Translator: sourceLanguage and targetLanguage are equal to their respective option passed in to Translator.create.");

promise_test(async (t) => {
  const controller = new AbortController();
  controller.abort();
  const createPromise = createTranslator({ signal: controller.signal, sourceLanguage: "en", targetLanguage: "de" });
  await promise_rejects_dom(t, "AbortError", createPromise);
}, "Translator.create() call with an aborted signal.");

promise_test(async (t) => {
  await testAbortPromise(t, (signal) => createTranslator({ signal, sourceLanguage: "en", targetLanguage: "de" }));
}, "Aborting Translator.create().");

promise_test(async (t) => {
  const controller = new AbortController();
  controller.abort();
  const translator = await createTranslator({ sourceLanguage: "en", targetLanguage: "de" });
  const translatePromise = translator.translate("hello", { signal: controller.signal });
  await promise_rejects_dom(t, "AbortError", translatePromise);
}, "Translator.translate() call with an aborted signal.");

promise_test(async (t) => {
  const translator = await createTranslator({ sourceLanguage: "en", targetLanguage: "de" });
  await testAbortPromise(t, (signal) => translator.translate("hello", { signal }));
}, "Aborting Translator.translate().");

promise_test(async (t) => {
  await testDestroy(t, createTranslator, { sourceLanguage: "en", targetLanguage: "de" }, [
    (translator) => translator.translate(kTestPrompt),
    (translator) => translator.measureInputUsage(kTestPrompt),
  ]);
}, "Calling Translator.destroy() aborts calls to write and measureInputUsage.");

promise_test(async (t) => {
  const translator = await createTranslator({ sourceLanguage: "en", targetLanguage: "de" });
  const stream = translator.translateStreaming(kTestPrompt);
  translator.destroy();
  await promise_rejects_dom(t, "AbortError", stream.pipeTo(new WritableStream()));
}, "Translator.translateStreaming() fails after destroyed");

promise_test(async (t) => {
  await testCreateAbort(t, createTranslator, { sourceLanguage: "en", targetLanguage: "de" }, [
    (translator) => translator.translate(kTestPrompt),
    (translator) => translator.measureInputUsage(kTestPrompt),
  ]);
}, "Translator.create()'s abort signal destroys its Translator after creation.");

promise_test(async (t) => {
  await testMonitor(createTranslator, { sourceLanguage: "en", targetLanguage: "de" });
}, "Translator.create() notifies its monitor on downloadprogress");

promise_test(async (t) => {
  await testCreateMonitorWithAbort(t, createTranslator, { sourceLanguage: "en", targetLanguage: "de" });
}, "Progress events are not emitted after aborted.");

promise_test(async (t) => {
  const translator = await createTranslator({ sourceLanguage: "en", targetLanguage: "de" });
  // Whitespace only, or control characters only: nothing to translate.
  const nonTranslatableStrings = ["", " ", "     ", " \r\n\t\f"];
  for (let c = 0; c < 0x1F; c++) nonTranslatableStrings.push(String.fromCharCode(c));
  const translatedNonTranslatableString = await Promise.all(nonTranslatableStrings.map((str) => translator.translate(str)));
  assert_array_equals(translatedNonTranslatableString, nonTranslatableStrings);
  // With words around them, they are translated.
  const translatableStrings = nonTranslatableStrings.map((str) => `Hello ${str} world`);
  const translatedTranslatableString = await Promise.all(translatableStrings.map((str) => translator.translate(str)));
  for (let i = 0; i < translatableStrings.length; i++) {
    assert_not_equals(translatedTranslatableString[i], translatableStrings[i]);
  }
}, "Translator.translate() echoes non-translatable content");

promise_test(async (t) => {
  const translator = await createTranslator({ sourceLanguage: "en", targetLanguage: "de" });
  const text = "hello";
  const inputUsage = await translator.measureInputUsage(text);
  assert_greater_than_equal(translator.inputQuota, 0);
  assert_greater_than_equal(inputUsage, 0);
  if (inputUsage < translator.inputQuota) {
    assert_equals(await translator.translate(text), kHelloTranslated);
  } else {
    await promise_rejects_quotaexceedederror(t, translator.translate(text), (requested) => requested !== null, translator.inputQuota);
  }
}, "Translator.measureInputUsage() and inputQuota basic usage.");

promise_test(async (t) => {
  const controller = new AbortController();
  controller.abort();
  const translator = await createTranslator({ sourceLanguage: "en", targetLanguage: "de" });
  const measureInputUsagePromise = translator.measureInputUsage("hello", { signal: controller.signal });
  await promise_rejects_dom(t, "AbortError", measureInputUsagePromise);
}, "Translator.measureInputUsage() call with an aborted signal.");

promise_test(async (t) => {
  const translator = await createTranslator({ sourceLanguage: "en", targetLanguage: "de" });
  await testAbortPromise(t, (signal) => translator.measureInputUsage("hello", { signal }));
}, "Aborting Translator.measureInputUsage().");
