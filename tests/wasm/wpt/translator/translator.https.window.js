// web-platform-tests ai/translator/translator.https.window.js, ported.
"use strict";

promise_test(async (t) => {
  // Valid but unsupported languages: the monitor's error comes before any
  // language support is checked.
  await testCreateMonitorCallbackThrowsError(t, createTranslator, { sourceLanguage: "und", targetLanguage: "und" });
}, "If monitor throws an error, LanguageDetector.create() rejects with that error");
