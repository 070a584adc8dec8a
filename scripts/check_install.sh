#!/usr/bin/env bash
# The installed package, as an embedder sees it: installs a build (default build/release) into
# a temporary prefix, builds examples/embed against it with CMake (find_package(seglog)) and
# again with pkg-config alone, runs both and checks what they print. About 10 s.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build/release}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

cmake --install "$build" --prefix "$tmp/prefix" >/dev/null
# Each public header compiles on its own, against the installed tree only.
for h in "$tmp"/prefix/include/seglog/*.h; do
  echo "#include <seglog/$(basename "$h")>" |
    g++ -std=c++20 -Wall -Wextra -Wpedantic -Werror -fsyntax-only -I"$tmp/prefix/include" -x c++ - ||
    { echo "check_install: $(basename "$h") does not compile on its own" >&2; exit 1; }
done
cmake -S examples/embed -B "$tmp/embed" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$tmp/prefix" >/dev/null
cmake --build "$tmp/embed" >/dev/null
out=$("$tmp/embed/event_store" "$tmp/data")
echo "$out"
for line in \
  "appended 2000 events (3 days old) and 500 events (now): offsets 0..2499 in 3 segments" \
  "read back 2500 events: ok" \
  "first event at or after a day ago: offset 2000" \
  "retention (retention.ms=86400000) deleted 2 segments: log start offset 2000, 1 segment(s) left, 1 .log file(s) on disk" \
  "read from offset 0: OutOfRange (below the log start offset)" \
  "read back 500 events from offset 2000: ok" \
  "reopened: log start offset 2000, log end offset 2500" \
  "OK"; do
  grep -qxF "$line" <<<"$out" || { echo "check_install: expected the line: $line" >&2; exit 1; }
done

# Without CMake: the compiler and pkg-config only.
export PKG_CONFIG_PATH="$tmp/prefix/lib/pkgconfig"
# shellcheck disable=SC2046  # pkg-config's flags are meant to split
g++ -std=c++20 -O1 -Wall -Wextra -Werror examples/embed/event_store.cc -o "$tmp/event_store_pc" \
  $(pkg-config --cflags --libs seglog)
"$tmp/event_store_pc" "$tmp/data-pc" | tail -n 1 | grep -qx OK
echo "check_install: find_package(seglog) and pkg-config builds of examples/embed work"
