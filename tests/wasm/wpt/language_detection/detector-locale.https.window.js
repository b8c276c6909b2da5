// web-platform-tests ai/language_detection/detector-locale.https.window.js,
// ported: the rejections are awaited (heed: the WPT leave them floating).
// ai/resources/locale-util.js's tags, English and Spanish, stay: heed's
// model detects English, not Spanish.
"use strict";

function getAvailability(expectedInputLanguages) {
  return LanguageDetector.availability({ expectedInputLanguages });
}

promise_test(async (t) => {
  for (const [languageSubtag, variations] of Object.entries(valid_language_tags)) {
    const languageSubtagAvailability = await getAvailability([languageSubtag]);
    // Each variation on its own.
    for (const variation of variations) {
      assert_availability_consistent(await getAvailability([variation]), languageSubtagAvailability);
    }
    // All variations together.
    assert_availability_consistent(await getAvailability(variations), languageSubtagAvailability);
  }
}, "LanguageDetector.availability() is consistent between language tag variations");

async function getExpectedInputLanguages(expectedInputLanguages) {
  return (await createLanguageDetector({ expectedInputLanguages })).expectedInputLanguages;
}

async function assert_valid_expected_input_languages(language) {
  const expectedInputLanguages = await getExpectedInputLanguages([language]);
  assert_equals(expectedInputLanguages.length, 1);
  assert_is_variation(language, expectedInputLanguages[0]);
  assert_is_canonical(expectedInputLanguages[0]);
}

function uniqueCount(array) {
  return new Set(array).size;
}

promise_test(async (t) => {
  for (const [languageSubtag, variations] of Object.entries(valid_language_tags)) {
    if (await getAvailability([languageSubtag]) === "unavailable") continue;
    await assert_valid_expected_input_languages(languageSubtag);
    for (const variation of variations) await assert_valid_expected_input_languages(variation);
    const expectedInputLanguages = await getExpectedInputLanguages(variations);
    // No duplicates.
    assert_equals(expectedInputLanguages.length, uniqueCount(expectedInputLanguages));
    for (const language of expectedInputLanguages) {
      assert_is_canonical(language);
      assert_is_variation(language, languageSubtag);
    }
  }
}, "LanguageDetector has valid expectedInputLanguages");

function assert_rejects_invalid_expected_input_languages(t, method, expectedInputLanguages) {
  return promise_rejects_js(t, RangeError, method({ expectedInputLanguages }));
}

promise_test(async (t) => {
  const checks = invalid_language_tags.map((languageTag) =>
    assert_rejects_invalid_expected_input_languages(t, createLanguageDetector, [languageTag]));
  checks.push(assert_rejects_invalid_expected_input_languages(t, createLanguageDetector, invalid_language_tags));
  await Promise.all(checks);  // heed: awaited
}, "LanguageDetector.create() throws RangeError for invalid language tags");

promise_test(async (t) => {
  const checks = invalid_language_tags.map((languageTag) =>
    assert_rejects_invalid_expected_input_languages(t, LanguageDetector.availability, [languageTag]));
  checks.push(assert_rejects_invalid_expected_input_languages(t, LanguageDetector.availability, invalid_language_tags));
  await Promise.all(checks);  // heed: awaited
}, "LanguageDetector.availability() throws RangeError for invalid language tags");
