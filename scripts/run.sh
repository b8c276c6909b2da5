#!/usr/bin/env bash
# The main job: builds heed (native and WebAssembly), assembles the page with
# the shipped model, and serves it on 127.0.0.1 (PORT, default 8080),
# printing its address. Stop it with Ctrl+C.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh release
printf 'A dog runs in the park.\n' |
  ./build/release/heed translate --model models/heed-en-de.heed --to de --beam 4 |
  sed 's/^/native build check: /'
bash scripts/build_wasm.sh
bash scripts/build_site.sh
echo "heed's page (model: models/heed-en-de-int8.heed), open:"
exec node scripts/serve.mjs --root build/site --port "${PORT:-8080}"
