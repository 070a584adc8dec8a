#!/usr/bin/env bash
# The one-command comparison, end to end at a tiny scale (ctest bench.compare_smoke): every
# workload runs on seglog and on Kafka 4.4.0, every result has both medians and a ratio, every
# limit is measured, and the chart is drawn. Fails on any missing piece; says nothing about
# speed (the numbers of a tiny scale on a busy CI machine mean nothing).
#
#   bench/compare/smoke_test.sh [path of seglog_compare_bench, default build/release's]
set -euo pipefail

ROOT="$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/../.." && pwd -P)"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/seglog-compare-smoke.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT
[[ $# -ge 1 ]] && export SEGLOG_COMPARE_BENCH="$1"

SEGLOG_COMPARE_DIR="$WORK/scratch" python3 "$ROOT/bench/compare/compare.py" \
    --rounds 1 --scale 0.001 --out "$WORK/compare.json" >"$WORK/table.md"
cat "$WORK/table.md"
python3 - "$WORK/compare.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
want = {"append-1KiB-16", "append-100B-1000", "append-zstd-100B-1000", "offset-lookup",
        "timestamp-lookup", "read-all", "recover-2GiB", "clean-1GiB", "open-10k", "open-1500x10"}
seen = {r["workload"] for r in doc["results"]}
errors = [f"workload {w} missing" for w in sorted(want - seen)]
errors += [f"no append-sweep workloads" for _ in [0] if not any(w.startswith("append-sweep-") for w in seen)]
for r in doc["results"]:
    if "CPU" in r["metric"]:
        # Tick-based user/kernel splits of millisecond runs can be 0: present is enough here.
        for system in ("seglog", "kafka"):
            if not isinstance(r[system]["median"], (int, float)):
                errors.append(f"{r['workload']} {r['metric']}: no {system} median")
        continue
    for system in ("seglog", "kafka"):
        m = r[system]["median"]
        if not isinstance(m, (int, float)) or m <= 0:
            errors.append(f"{r['workload']} {r['metric']}: {system} median is {m!r}")
    if not r["ratio"] or r["ratio"] <= 0:
        errors.append(f"{r['workload']} {r['metric']}: ratio is {r['ratio']!r}")
limits = {l["name"]: l["median"] for l in doc["limits"]}
for name in ("limit-memcpy", "limit-crc32c", "limit-disk-write-buffered",
             "limit-disk-write-fdatasync", "limit-disk-read-cold", "limit-page-cache-read",
             "limit-page-cache-write-16KiB", "limit-page-cache-write-batches"):
    if not limits.get(name, 0) > 0:
        errors.append(f"limit {name} missing or not positive: {limits.get(name)!r}")
if errors:
    print("compare smoke test FAILED:\n  " + "\n  ".join(errors))
    sys.exit(1)
print(f"compare smoke test: {len(doc['results'])} results, {len(limits)} limits, all present")
PY
[[ -s "$WORK/append_sweep.png" ]] || { echo "compare smoke test FAILED: no chart at $WORK/append_sweep.png"; exit 1; }
echo "compare smoke test: chart drawn ($(stat -c %s "$WORK/append_sweep.png") bytes)"
