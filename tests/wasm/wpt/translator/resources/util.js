// ai/translator/resources/util.js, ported: create() needs no user
// activation here (heed: no test_driver.bless()).
async function createTranslator(options) {
  return await Translator.create(options);
}

// heed: the WPT translate 'hello' from English to Japanese and expect
// 'こんにちは'; here English to German, and what heed's own translate()
// makes of it, which the test runner passes in the page's address.
const kHelloTranslated = new URLSearchParams(location.search).get("hello");
