// web-platform-tests ai/translator/translator-translate-streaming-post-abort.tentative.https.window.js,
// ported: English to German.
"use strict";

promise_test(async (t) => {
  const translator = await createTranslator({ sourceLanguage: "en", targetLanguage: "de" });
  const controller = new AbortController();
  const stream = translator.translateStreaming("hello", { signal: controller.signal });
  controller.abort();
  await promise_rejects_dom(t, "AbortError", stream.pipeTo(new WritableStream()));
  // The same translator still translates.
  const streamingResponse = translator.translateStreaming("hello");
  assert_true(streamingResponse instanceof ReadableStream);
  const result = (await Array.fromAsync(streamingResponse)).join("");
  assert_greater_than(result.length, 0, "The result should not be empty.");
}, "Translate after aborting a previous translateStreaming.");
