#!/usr/bin/env bash
# heed as a C++ package: installs build/release under a fresh prefix, then
# builds tests/consumers/cpp out of tree against it three ways (CMake's
# find_package, pkg-config with the shared library, pkg-config --static)
# and checks each translates as the CLI does. The consumer's compile must
# not read a Highway or SentencePiece header.
#   bash tests/consumers/cpp/test.sh   (after scripts/build.sh release)
set -euo pipefail
cd "$(dirname "$0")/../../.."
here=tests/consumers/cpp
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
prefix="$work/prefix"
cmake --install build/release --prefix "$prefix" >/dev/null
model=models/heed-en-de-int8.heed
text="A dog runs in the park."
want=$(echo "$text" | "$prefix/bin/heed" translate --model "$model" --to de --beam 4)

check() {  # NAME BINARY
  local got
  got=$(echo "$text" | "$2" "$model" de 2>"$work/err")
  if [[ "$got" != "$want" ]] || ! grep -q "cross-attention floats: [1-9]" "$work/err"; then
    echo "C++ package ($1): got '$got', want '$want'" >&2
    cat "$work/err" >&2
    exit 1
  fi
  echo "C++ package ($1): $got"
}

cmake -S "$here" -B "$work/cmake" -G Ninja -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$work/cmake" >/dev/null
LD_LIBRARY_PATH="$prefix/lib" check "find_package" "$work/cmake/consumer"

export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
# shellcheck disable=SC2046  # pkg-config's flags are meant to split
c++ -std=c++17 -o "$work/shared" "$here/main.cc" $(pkg-config --cflags --libs heed)
LD_LIBRARY_PATH="$prefix/lib" check "pkg-config" "$work/shared"
# shellcheck disable=SC2046
c++ -std=c++17 -o "$work/static" "$here/main.cc" \
  $(pkg-config --cflags heed) "$prefix/lib/libheed.a" \
  $(pkg-config --static --libs-only-l --libs-only-other heed | sed 's/-lheed//')
check "pkg-config --static" "$work/static"
if ldd "$work/static" | grep -q libheed; then
  echo "C++ package: the static build links libheed.so" >&2
  exit 1
fi

# Every header the consumer's compile reads: heed's, and the system's.
c++ -std=c++17 -MM $(pkg-config --cflags heed) "$here/main.cc" >"$work/deps"
if grep -Eq 'hwy/|sentencepiece|nlohmann' "$work/deps"; then
  echo "C++ package: the public header pulls in a dependency's header:" >&2
  cat "$work/deps" >&2
  exit 1
fi
grep -q "include/heed/core/translator.h" "$work/deps"
echo "C++ package: the public header reads no dependency's header"
