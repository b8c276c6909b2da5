// web-platform-tests ai/language_detection/detector.optional.https.window.js,
// ported: English and German, the languages heed's model detects, instead
// of nineteen languages (lines marked heed:).
"use strict";

async function assert_detects_correct_language(detector, input, expectedLanguage) {
  const results = await detector.detect(input);
  // The language of highest confidence is the expected one.
  assert_equals(results[0].detectedLanguage, expectedLanguage);
}

promise_test(async (t) => {
  const testInput = {  // heed: English and German only
    en: "This is an example sentence.",
    de: "Dies ist ein Beispielsatz.",
  };
  const expectedInputLanguages = Object.keys(testInput);
  const detector = await createLanguageDetector({ expectedInputLanguages });
  for (const [language, input] of Object.entries(testInput)) {
    await assert_detects_correct_language(detector, input, language);
  }
}, "LanguageDetector.detect() detects the correct language");

promise_test(async () => {
  const expectedInputLanguages = ["en", "de"];  // heed: the WPT: ["en", "es"]
  const detector = await createLanguageDetector({ expectedInputLanguages });
  assert_array_equals(detector.expectedInputLanguages, expectedInputLanguages);
  assert_true(Object.isFrozen(detector.expectedInputLanguages));
}, "Creating LanguageDetector with expectedInputLanguages");

promise_test(async () => {
  const detector = await createLanguageDetector();
  const results = await detector.detect("");
  assert_equals(results.length, 1);
  const [result] = results;
  assert_equals(result.detectedLanguage, "und");
  assert_equals(result.confidence, 1);
}, "LanguageDetector.detect() detects empty string");
