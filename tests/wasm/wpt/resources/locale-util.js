// The language tags of the web-platform-tests' ai/resources/locale-util.js.

const valid_language_tags = {
  en: [
    "en-Latn", "en-Latn-GB", "en-GB", "en-fonipa-scouse", "en-Latn-fonipa-scouse",
    "en-Latn-GB-fonipa-scouse", "en-Latn-x-this-is-a-private-use-extensio-n", "EN", "en-lATN",
    "EN-lATN-gb", "EN-gb", "EN-scouse-fonipa", "EN-lATN-scouse-fonipa", "EN-lATN-gb-scouse-fonipa",
  ],
  es: ["es-419", "es-ES", "es-ES-1979"],
};

const invalid_language_tags = ["e", "Latn", "enLatnGBfonipa", "11", "en_Latn", "en-Lat", "en-A999"];
