// web-platform-tests ai/translator/translator-bad-input.https.window.js, ported.
"use strict";

promise_test(async (t) => {
  await promise_rejects_js(t, TypeError, Translator.create(/* empty options */));
}, "Translator.create rejects with TypeError if no options are passed.");

promise_test(async (t) => {
  await promise_rejects_js(t, TypeError, Translator.create({ sourceLanguage: "en" }));
}, "Translator.create rejects with TypeError targetLanguage is not provided.");

promise_test(async (t) => {
  await promise_rejects_js(t, TypeError, Translator.create({ targetLanguage: "en" }));
}, "Translator.create rejects with TypeError sourceLanguage is not provided.");
