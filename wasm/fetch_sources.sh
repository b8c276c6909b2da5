#!/usr/bin/env bash
# Fetches the Debian sources of Highway 1.0.3 and SentencePiece 0.1.97 into
# build/wasm-src for the WebAssembly build (nothing of them is committed).
# SentencePiece comes from its upstream tarball as Debian ships it (the
# Debian-patched tree drops the static library target). Safe to run twice.
set -euo pipefail
cd "$(dirname "$0")/.."
dest=build/wasm-src
[[ -f $dest/highway/hwy/highway.h && -f $dest/sentencepiece/src/sentencepiece_processor.h ]] && exit 0

if ! grep -rqs "deb-src" /etc/apt/sources.list /etc/apt/sources.list.d/; then
  cat >/etc/apt/sources.list.d/heed-deb-src.sources <<'SRC'
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
  apt-get update -q
fi
rm -rf "$dest" && mkdir -p "$dest/download"
(cd "$dest/download" && apt-get source -q --download-only highway=1.0.3-3+deb12u1 sentencepiece=0.1.97-3)
mkdir -p "$dest/highway" "$dest/sentencepiece"
tar -xzf "$dest"/download/highway_1.0.3.orig.tar.gz -C "$dest/highway" --strip-components=1
tar -xzf "$dest"/download/sentencepiece_0.1.97.orig.tar.gz -C "$dest/sentencepiece" --strip-components=1
