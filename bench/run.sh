#!/usr/bin/env bash
# heed against PyTorch and ONNX Runtime (native and Web), in one run:
#   bash bench/run.sh [--runs N] [--systems "heed int8,pytorch,..."] [--workloads ...]
# Installs the peers (Debian's python3-torch; onnxruntime-node and
# onnxruntime-web from npm, without their install scripts, which fetch CUDA
# libraries; the CPU binaries ship inside the packages), builds heed natively
# and to WebAssembly, exports the model to ONNX, and prints the tables.
# Then the matrix multiply against OpenBLAS: build/release/matmul_bench.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --recipe
(cd bench && [[ -d node_modules/onnxruntime-web ]] ||
  npm ci --ignore-scripts --no-audit --no-fund)
bash scripts/build.sh release
[[ -f build/wasm/dist/heed.js ]] || bash scripts/build_wasm.sh
export NODE_PATH="$PWD/bench/node_modules"
/usr/bin/python3 bench/compare.py "$@"
./build/release/matmul_bench
