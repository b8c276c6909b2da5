// web-platform-tests ai/translator/translator-translate-streaming-concurrent.optional.https.window.js,
// ported: English to German.
"use strict";

promise_test(async () => {
  const translator = await createTranslator({ sourceLanguage: "en", targetLanguage: "de" });
  const [result1, result2] = await Promise.all([
    readStream(translator.translateStreaming(kTestPrompt)),
    readStream(translator.translateStreaming(kTestPrompt)),
  ]);
  assert_greater_than(result1.length, 0);
  assert_greater_than(result2.length, 0);
}, "Multiple Translator.translateStreaming() calls with identical inputs are resolved successfully");

promise_test(async () => {
  const translator = await createTranslator({ sourceLanguage: "en", targetLanguage: "de" });
  const [result1, result2] = await Promise.all([
    readStream(translator.translateStreaming(kTestPrompt)),
    readStream(translator.translateStreaming(kTestPrompt2)),
  ]);
  assert_greater_than(result1.length, 0);
  assert_greater_than(result2.length, 0);
}, "Multiple Translator.translateStreaming() calls with divergent inputs are resolved successfully");
