// ai/language_detection/resources/util.js, ported: create() needs no user
// activation here (heed: no test_driver.bless()).
async function createLanguageDetector(options = {}) {
  return await LanguageDetector.create(options);
}
