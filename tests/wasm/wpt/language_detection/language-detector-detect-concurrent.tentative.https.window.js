// web-platform-tests ai/language_detection/language-detector-detect-concurrent.tentative.https.window.js,
// ported unchanged but for the harness (kTestPrompt2: wpt/resources/util.js).
"use strict";

promise_test(async () => {
  const detector = await createLanguageDetector();
  await Promise.all([detector.detect(kTestPrompt), detector.detect(kTestPrompt)]);
}, "Multiple LanguageDetector.detect() calls with identical inputs are resolved successfully");

promise_test(async () => {
  const detector = await createLanguageDetector();
  await Promise.all([detector.detect(kTestPrompt), detector.detect(kTestPrompt2)]);
}, "Multiple LanguageDetector.detect() calls with divergent inputs are resolved successfully");
