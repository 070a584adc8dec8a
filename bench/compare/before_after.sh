#!/usr/bin/env bash
# seglog against an older seglog: the same seglog_compare_bench workloads from two builds,
# alternating, one line per workload with both medians (what docs/benchmarks.md records for an
# optimisation: before and after, in one run). Both run without --hold-mib (older builds have
# no such flag), so the two differ only in their code.
#
#   bench/compare/before_after.sh <old seglog_compare_bench> <new seglog_compare_bench> [GiB]
#
# Build the old one from a worktree, e.g.
#   git worktree add /tmp/seglog-old <commit> && (cd /tmp/seglog-old &&
#     cmake --preset release && cmake --build build/release --target seglog_compare_bench)
set -euo pipefail
OLD="$1" NEW="$2" GIB="${3:-0.5}"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/seglog-before-after.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT
bytes() { python3 -c "print(int($GIB * $1 * 2**30))"; }
# Inputs written once by the new build (the files are the same format for both).
"$NEW" make-recover-dir --src "$WORK/rec" --bytes "$(bytes 1)" >/dev/null
"$NEW" make-clean-dir --src "$WORK/clean" --bytes "$(bytes 1)" --keys 250000 >/dev/null
run() {  # run <label> <args...>: median of the first metric of each build, 3 rounds alternating
    local label="$1"; shift
    local o=() n=()
    for _ in 1 2 3; do
        o+=("$("$OLD" "$@" --iterations 1 --warmup 1 --hold-mib 0 | sed -n 1p | python3 -c 'import json,sys; print(json.load(sys.stdin)["median"])')")
        n+=("$("$NEW" "$@" --iterations 1 --warmup 1 --hold-mib 0 | sed -n 1p | python3 -c 'import json,sys; print(json.load(sys.stdin)["median"])')")
    done
    python3 - "$label" "${o[@]}" "${n[@]}" <<'PY'
import statistics, sys
label, v = sys.argv[1], list(map(float, sys.argv[2:]))
old, new = statistics.median(v[:3]), statistics.median(v[3:])
print(f"| {label} | {old:,.1f} | {new:,.1f} | {new / old:.2f}x |")
PY
}
echo "| workload (MB/s) | before | after | after/before |"
echo "|---|---|---|---|"
run "append 1 KiB x 16" append --record-size 1024 --batch-records 16 --total-bytes "$(bytes 1)" --codec none
run "append 100 B x 1000" append --record-size 100 --batch-records 1000 --total-bytes "$(bytes 1)" --codec none
run "append zstd 100 B x 1000" append --record-size 100 --batch-records 1000 --total-bytes "$(bytes 0.25)" --codec zstd
run "read-all" read-all --log-bytes "$(bytes 1)"
run "recover" recover --src "$WORK/rec"
run "clean" clean --src "$WORK/clean"
