#!/usr/bin/env bash
# Assembles the static page in build/site: web/, the ES module (lib/) and
# the shipped models (models/: translation, language detection, head roles). Everything
# it needs is in that folder, so it can be served by any static file
# server, or opened offline once loaded.
set -euo pipefail
cd "$(dirname "$0")/.."
[[ -f build/wasm/dist/heed.js ]] || bash scripts/build_wasm.sh
site=build/site
rm -rf "$site"
mkdir -p "$site/lib" "$site/models/eval"
cp -r web/. "$site/"
cp build/wasm/dist/*.js build/wasm/dist/*.wasm "$site/lib/"
cp models/heed-en-de-int8.heed models/langid-en-de.json "$site/models/"
# Head roles over the test sets and component importance: two views' data.
cp models/eval/heads.json models/eval/importance.json models/eval/quality.json \
  "$site/models/eval/"
# The service worker's list of files to keep and its version (a hash of
# them), so that a new build replaces the old copies.
node --input-type=module - "$site" <<'JS'
import { createHash } from "node:crypto";
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
const site = process.argv[2];
const walk = (dir) => readdirSync(dir).flatMap((f) => {
  const p = join(dir, f);
  return statSync(p).isDirectory() ? walk(p) : [p];
});
const files = walk(site).map((f) => relative(site, f)).filter((f) => f !== "sw.js" && !f.endsWith(".heed")).sort();
const hash = createHash("sha256");
for (const f of files) hash.update(f).update(readFileSync(join(site, f)));
const sw = join(site, "sw.js");
writeFileSync(sw, readFileSync(sw, "utf8")
  .replace(/const VERSION = "[^"]*";/, `const VERSION = "${hash.digest("hex").slice(0, 16)}";`)
  .replace(/const FILES = \[\];/, `const FILES = ${JSON.stringify(["./", ...files])};`));
JS
# Compressed copies for servers that serve them (serve.mjs does): brotli
# and gzip of the text and the engine. Not the model: int8 weights shrink
# by a tenth at best, and its download progress counts its real bytes.
node --input-type=module - "$site" <<'JS'
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { brotliCompressSync, constants, gzipSync } from "node:zlib";
const walk = (dir) => readdirSync(dir).flatMap((f) => {
  const p = join(dir, f);
  return statSync(p).isDirectory() ? walk(p) : [p];
});
let plain = 0, br = 0;
for (const file of walk(process.argv[2]).filter((f) => /\.(html|js|mjs|css|json|svg|wasm)$/.test(f))) {
  const data = readFileSync(file);
  const b = brotliCompressSync(data, { params: { [constants.BROTLI_PARAM_QUALITY]: 11,
                                                 [constants.BROTLI_PARAM_SIZE_HINT]: data.length } });
  writeFileSync(`${file}.br`, b);
  writeFileSync(`${file}.gz`, gzipSync(data, { level: 9 }));
  plain += data.length;
  br += b.length;
}
console.log(`site: page and engine ${plain} bytes, ${br} with brotli`);
JS
du -sb "$site" | awk '{printf "site: %s bytes in build/site\n", $1}'
