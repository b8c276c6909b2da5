// A page that uses heed as an npm package, built by a bundler with its
// default configuration: translates one sentence with attention (the
// engine in its default Web Worker) and writes what it got on the page.
import { createTranslator } from "heed";

async function main() {
  const t = await createTranslator({ model: "./heed-en-de-int8.heed" });
  const r = await t.translate("A dog runs in the park.", { to: "de", attention: true });
  return { text: r.text, crossLayers: r.attention.cross.length };
}

main().then(
  (result) => { document.body.dataset.result = JSON.stringify(result); },
  (e) => { document.body.dataset.error = String(e?.message ?? e); },
);
