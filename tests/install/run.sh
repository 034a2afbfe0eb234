#!/usr/bin/env bash
# t-install-consumer: install the build into a fresh prefix, then build and
# run a consumer with find_package(potm) (shared and static targets) and
# with pkg-config.   usage: run.sh <build-dir> <source-dir>
set -euo pipefail
build=$1 src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cmake --install "$build" --prefix "$tmp/prefix" >/dev/null
cmake -S "$src/tests/install/consumer" -B "$tmp/cmake-build" \
      -DCMAKE_PREFIX_PATH="$tmp/prefix" >/dev/null
cmake --build "$tmp/cmake-build" >/dev/null
LD_LIBRARY_PATH="$tmp/prefix/lib:${LD_LIBRARY_PATH:-}" "$tmp/cmake-build/consumer-shared"
"$tmp/cmake-build/consumer-static"
pcdir=$(dirname "$(find "$tmp/prefix" -name potm-tl2.pc | head -1)")
export PKG_CONFIG_PATH="$pcdir"
cc -o "$tmp/pc-consumer" "$src/tests/install/consumer/main.c" $(pkg-config --cflags --libs potm-tl2)
LD_LIBRARY_PATH="$(pkg-config --variable=libdir potm-tl2)" "$tmp/pc-consumer"
cc -o "$tmp/pc-static" "$src/tests/install/consumer/main.c" \
   $(pkg-config --cflags potm-seq) "$(pkg-config --variable=libdir potm-seq)/libpotm-seq.a" \
   $(pkg-config --static --libs-only-l potm-seq | sed 's/-lpotm-seq//')
"$tmp/pc-static"
echo "install consumer: all OK"
