#!/usr/bin/env bash
# Builds the WebAssembly module and assembles the ES module package in
# build/wasm/dist (heed.js, heed.d.ts, package.json, heed_engine.{js,wasm}).
set -euo pipefail
cd "$(dirname "$0")/.."
export NODE_PATH=/usr/share/nodejs  # Emscripten's optimiser needs acorn
bash wasm/fetch_sources.sh
cmake --preset wasm >/dev/null
cmake --build --preset wasm -j "$(nproc)"
dist=build/wasm/dist
mkdir -p "$dist"
cp wasm/heed.js wasm/node.js wasm/options.js wasm/result.js wasm/worker.js wasm/heed.d.ts wasm/package.json build/wasm/wasm/heed_engine.js \
  build/wasm/wasm/heed_engine.wasm "$dist/"
for f in heed_engine.wasm heed_engine.js heed.js; do
  printf '%-18s %8d bytes, %8d gzipped\n' "$f" "$(stat -c %s "$dist/$f")" \
    "$(gzip -9c "$dist/$f" | wc -c)"
done
