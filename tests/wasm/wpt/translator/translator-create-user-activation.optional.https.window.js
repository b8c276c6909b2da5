// web-platform-tests ai/translator/translator-create-user-activation.optional.https.window.js,
// ported: English to German; what concerns user activation is left out
// (heed: create() needs none), what remains checks the availability
// before and after the first create().
"use strict";

promise_test(async (t) => {
  const languagePair = { sourceLanguage: "en", targetLanguage: "de" };
  const availability = await Translator.availability(languagePair);
  assert_not_equals(availability, "unavailable");  // heed: assert_implements_optional in the WPT
  if (availability !== "available") {
    // heed: no NotAllowedError without user activation, and no test_driver.bless()
    await Translator.create(languagePair);
  }
  assert_equals(await Translator.availability(languagePair), "available");
  await Translator.create(languagePair);
}, "Create requires user activation when availability is \"downloadable\"");
