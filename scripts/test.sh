#!/usr/bin/env bash
# Runs every test: style and lint, the doctest suite (release and ASan/UBSan), the
# command line, the WebAssembly module, the web page, and each fuzzer for a
# bounded time under ASan/UBSan.
set -euo pipefail
cd "$(dirname "$0")/.."
FUZZ_SECONDS="${FUZZ_SECONDS:-60}"

bash scripts/setup.sh

echo "== style (clang-format)"
git ls-files '*.h' '*.cc' | xargs clang-format --dry-run -Werror

echo "== release build and doctest suite"
bash scripts/build.sh release
./build/release/heed_tests

echo "== clang-tidy"
git ls-files 'core/*.cc' 'cli/*.cc' |
  xargs -P "$(nproc)" -n 1 clang-tidy -p build/release --quiet \
    --warnings-as-errors='*' 2>/dev/null

echo "== command line"
bash tests/cli_test.sh build/release/heed

echo "== C++ package: cmake --install, then find_package(heed) and pkg-config"
bash tests/consumers/cpp/test.sh

echo "== BLEU/chrF scorer"
python3 -m unittest tests/score_test.py

echo "== checkpoint averaging in the training recipe"
/usr/bin/python3 -m unittest tests/average_test.py  # Debian's, with PyTorch

echo "== growing a model: the grown model computes what the original did"
/usr/bin/python3 -m unittest tests/grow_test.py

echo "== the shipped model on everyday sentences: no loop, no empty or wrong-language output"
python3 -m unittest tests/everyday_test.py

echo "== HTML mode: well-formed, no tag of its own, tags on the aligned words"
python3 -m unittest tests/html_test.py

echo "== training text: Debian's bilingual manuals paired block by block"
python3 -m unittest tests/manuals_test.py

echo "== Marian models in and out: round trip, conventions, hostile files"
/usr/bin/python3 -m unittest tests/marian_test.py

echo "== head roles, importance, lengths: measured on the shipped model"
python3 -m unittest tests/heads_test.py

echo "== WebAssembly module against the native build, and the page in Chromium (node --test)"
bash scripts/build_wasm.sh
bash scripts/build_site.sh
node_modules/.bin/tsc -p tests/consumers/typescript  # heed.d.ts, --strict
node --test tests/wasm/ tests/web/ tests/consumers/bundlers/

echo "== ASan/UBSan build and doctest suite"
bash scripts/build.sh asan
ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
  ./build/asan/heed_tests

echo "== fuzzing (${FUZZ_SECONDS}s per target)"
bash scripts/build.sh fuzz
corpus=$(mktemp -d)
trap 'rm -rf "$corpus"' EXIT
mkdir -p "$corpus/loader" "$corpus/translate" "$corpus/tokenizer"
# A crashing input is kept in build/fuzz/crashes, not in the working tree.
mkdir -p build/fuzz/crashes
crashes=-artifact_prefix=build/fuzz/crashes/
# Runs one fuzzer: its final stats, or on a failure its whole report (the
# sanitizer's stack, the input as Base64), then its exit status.
fuzz() {
  local log rc=0
  log=$(mktemp)
  "$@" >"$log" 2>&1 || rc=$?
  if ((rc != 0)); then
    echo "== $1 failed (exit $rc):"
    grep -av '^#[0-9]' "$log" | tail -100
  else
    tail -4 "$log"
  fi
  rm -f "$log"
  return "$rc"
}
cp tests/fixtures/*.heed "$corpus/loader/"
cp tests/fixtures/tiny_spm.model "$corpus/tokenizer/"
# The shipped model's tokenizer: the one with a normaliser charsmap.
python3 - models/heed-en-de.heed "$corpus/tokenizer/shipped" <<'PY'
import json, struct, sys
data = open(sys.argv[1], "rb").read()
n = struct.unpack("<Q", data[:8])[0]
begin, end = json.loads(data[8:8 + n])["tokenizer.source"]["data_offsets"]
open(sys.argv[2], "wb").write(data[8 + n + begin:8 + n + end])
PY
printf '\x05\x10A dog runs. Ein Hund.' >"$corpus/translate/seed"
fuzz ./build/fuzz/fuzz_model_loader "$crashes" -max_total_time="$FUZZ_SECONDS" \
  -rss_limit_mb=4096 -print_final_stats=1 "$corpus/loader"
fuzz ./build/fuzz/fuzz_translate "$crashes" -max_total_time="$FUZZ_SECONDS" -max_len=512 \
  -print_final_stats=1 "$corpus/translate"
fuzz ./build/fuzz/fuzz_tokenizer "$crashes" -max_total_time="$FUZZ_SECONDS" -max_len=400000 \
  -rss_limit_mb=4096 -print_final_stats=1 "$corpus/tokenizer"
mkdir -p "$corpus/html"
printf '<p>A <b>dog</b> &amp; <a href="x"><img src=y></a> runs.</p><!-- c --><ul><li>x<script>a</script>' \
  >"$corpus/html/seed"
fuzz ./build/fuzz/fuzz_html "$crashes" -max_total_time="$FUZZ_SECONDS" -max_len=4096 \
  -print_final_stats=1 "$corpus/html"
mkdir -p "$corpus/flags"
printf -- '--beam\0004\0--length-penalty\0000.6\0--max-batch\00032\0--attention-json\0a.json\0--logit-lens\0003' \
  >"$corpus/flags/seed"
fuzz ./build/fuzz/fuzz_cli_flags "$crashes" -max_total_time="$FUZZ_SECONDS" -max_len=256 \
  -print_final_stats=1 "$corpus/flags"

echo "== all tests passed"
