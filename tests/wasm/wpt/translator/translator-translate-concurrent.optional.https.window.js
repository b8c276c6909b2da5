// web-platform-tests ai/translator/translator-translate-concurrent.optional.https.window.js,
// ported: English to German.
"use strict";

promise_test(async () => {
  const translator = await createTranslator({ sourceLanguage: "en", targetLanguage: "de" });
  await Promise.all([translator.translate(kTestPrompt), translator.translate(kTestPrompt)]);
}, "Multiple Translator.translate() calls with identical inputs are resolved successfully");

promise_test(async () => {
  const translator = await createTranslator({ sourceLanguage: "en", targetLanguage: "de" });
  await Promise.all([translator.translate(kTestPrompt), translator.translate(kTestPrompt2)]);
}, "Multiple Translator.translate() calls with divergent inputs are resolved successfully");
