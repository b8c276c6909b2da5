#!/usr/bin/env bash
# Builds the WebAssembly module and assembles the ES module package in
# build/wasm/dist (heed.js, heed.d.ts, package.json, heed_engine.{js,wasm},
# and the threaded engine heed_engine_threads.{js,wasm,worker.js}).
set -euo pipefail
cd "$(dirname "$0")/.."
export NODE_PATH=/usr/share/nodejs  # Emscripten's optimiser needs acorn
bash wasm/fetch_sources.sh
for preset in wasm wasm-threads; do
  cmake --preset "$preset" >/dev/null
  cmake --build --preset "$preset" -j "$(nproc)"
done
dist=build/wasm/dist
mkdir -p "$dist"
cp wasm/heed.js wasm/hold.js wasm/load.js wasm/node.js wasm/options.js wasm/remote.js wasm/requests.js wasm/result.js wasm/worker.js wasm/langid.js wasm/heed.d.ts wasm/translator-api.js wasm/translator-api.d.ts wasm/api-common.js wasm/language-detector.js wasm/translate-element.js wasm/translate-element.d.ts wasm/package.json build/wasm/wasm/heed_engine.js \
  build/wasm/wasm/heed_engine.wasm build/wasm-threads/wasm/heed_engine_threads.{js,wasm,worker.js} "$dist/"
# Node loads the pool's (CommonJS) worker script under this name.
cp "$dist/heed_engine_threads.worker.js" "$dist/heed_engine_threads.worker.cjs"
for f in heed_engine.wasm heed_engine.js heed_engine_threads.wasm heed_engine_threads.js heed.js; do
  printf '%-18s %8d bytes, %8d gzipped\n' "$f" "$(stat -c %s "$dist/$f")" \
    "$(gzip -9c "$dist/$f" | wc -c)"
done
