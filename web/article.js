// The demo of translateElement: the article below translated in place,
// the original a click away, paragraphs added later translated as they
// come (observe).
import { createTranslatorAPI } from "heed/translator-api";
import { translateElement } from "heed/translate-element";

const $ = (id) => document.getElementById(id);
const article = $("article");
const { Translator } = createTranslatorAPI({ model: "models/heed-en-de-int8.heed" });
let page = null;

function status(text) {
  $("status").textContent = text;
}

async function start() {
  const translator = await Translator.create({ sourceLanguage: "en", targetLanguage: "de" });
  $("translate").disabled = false;
  status("Ready.");
  $("translate").addEventListener("click", async () => {
    $("translate").disabled = true;
    status("Translating…");
    page = translateElement(article, translator, { observe: true, onError: (e) => status(e.message) });
    await page.done;
    article.dataset.done = String(Number(article.dataset.done ?? 0) + 1);
    $("original").disabled = false;
    status("Translated; new paragraphs are translated as they come.");
  });
}

$("original").addEventListener("click", () => {
  page.toggle();
  $("original").textContent = page.showing === "original" ? "Show translation" : "Show original";
});

let added = 0;
const more = ["The <b>cat</b> is sleeping on the sofa.", "A man is playing the <i>guitar</i>.",
              "The <a href=\"#bus\">bus</a> is late."];
$("add").addEventListener("click", async () => {
  const p = document.createElement("p");
  p.innerHTML = more[added++ % more.length];
  article.append(p);
  await Promise.resolve();  // the observer's turn
  if (page) {
    await page.done;
    article.dataset.done = String(Number(article.dataset.done ?? 0) + 1);
  }
});

start().catch((e) => status(`heed could not load: ${e.message}`));
