#!/usr/bin/env bash
# Assembles the static page in build/site: web/, the ES module (lib/) and
# the shipped model (models/). Everything it needs is in that folder, so it
# can be served by any static file server, or opened offline once loaded.
set -euo pipefail
cd "$(dirname "$0")/.."
[[ -f build/wasm/dist/heed.js ]] || bash scripts/build_wasm.sh
site=build/site
rm -rf "$site"
mkdir -p "$site/lib" "$site/models"
cp -r web/. "$site/"
cp build/wasm/dist/*.js build/wasm/dist/*.wasm "$site/lib/"
cp models/heed-en-de-int8.heed "$site/models/"
du -sb "$site" | awk '{printf "site: %s bytes in build/site\n", $1}'
