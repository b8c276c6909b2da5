#!/usr/bin/env bash
# The main job: builds heed and translates sample sentences with the model
# in models/ (or, until one is shipped, the tiny test fixture model).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh release
model=$(ls models/*.heed 2>/dev/null | head -1 || true)
if [[ -z "$model" ]]; then
  model=tests/fixtures/tiny_postnorm.heed
  echo "(no trained model in models/ yet: using the random fixture model,"
  echo " whose output is noise; it shows the pipeline works)"
fi
./build/release/heed info --model "$model" | head -3
printf 'A dog runs in the park.\nTwo men are playing football.\n' |
  ./build/release/heed translate --model "$model" --to de --beam 4
