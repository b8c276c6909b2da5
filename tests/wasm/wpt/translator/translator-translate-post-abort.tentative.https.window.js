// web-platform-tests ai/translator/translator-translate-post-abort.tentative.https.window.js,
// ported: English to German.
"use strict";

promise_test(async (t) => {
  const translator = await createTranslator({ sourceLanguage: "en", targetLanguage: "de" });
  const controller = new AbortController();
  const promise = translator.translate("hello", { signal: controller.signal });
  controller.abort();
  await promise_rejects_dom(t, "AbortError", promise);
  // The same translator still translates.
  const result = await translator.translate("hello");
  assert_greater_than(result.length, 0);
}, "Translate after aborting a previous translate.");
