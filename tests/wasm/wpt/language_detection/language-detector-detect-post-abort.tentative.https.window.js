// web-platform-tests ai/language_detection/language-detector-detect-post-abort.tentative.https.window.js,
// ported unchanged but for the harness.
"use strict";

promise_test(async (t) => {
  const detector = await createLanguageDetector();
  const controller = new AbortController();
  const promise = detector.detect(kTestPrompt, { signal: controller.signal });
  controller.abort();
  await promise_rejects_dom(t, "AbortError", promise);
  // The same detector still detects.
  const result = await detector.detect(kTestPrompt);
  assert_greater_than(result.length, 0);
}, "Detect after aborting a previous detect.");
