#!/usr/bin/env bash
# Installs what heed needs to build and test, from Debian's packages.
# Safe to run again: it only calls apt when something is missing.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config git
  clang clang-format clang-tidy libclang-rt-14-dev   # fuzzing, style
  libhwy-dev libsentencepiece-dev sentencepiece     # SIMD, tokeniser
  nlohmann-json3-dev doctest-dev python3            # JSON, tests
  libopenblas-dev                                   # benchmark peer
  emscripten chromium                               # WebAssembly, browser tests
  python3-torch                                     # the recipe's own tests
  python3-sentencepiece python3-protobuf python3-yaml  # Marian models (marian.py)
)
# Node.js and npm: Debian's unless the machine already has them.
command -v node >/dev/null || packages+=(nodejs)
command -v npm >/dev/null || packages+=(npm)
if [[ "${1:-}" == "--recipe" ]]; then  # training and reference fixtures
  packages+=(python3-numpy python3-sentencepiece
             libopenblas0-pthread libtcmalloc-minimal4
             trans-de-en)
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
    missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  sudo_cmd=()
  [[ $(id -u) -eq 0 ]] || sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update -q
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -q \
    --no-install-recommends "${missing[@]}"
fi

# playwright-core drives Debian's Chromium in the browser tests; typescript
# checks a consumer of heed.d.ts; Vite, webpack and esbuild build the
# bundler consumers (tests/consumers/bundlers).
cd "$(dirname "$0")/.."
for dep in playwright-core typescript vite webpack webpack-cli esbuild; do
  if [[ ! -d node_modules/$dep ]]; then
    npm ci --no-audit --no-fund
    break
  fi
done
