#!/usr/bin/env bash
# Draws append throughput against record size for seglog and Kafka 4.4.0 from
# bench/results/compare.json (the append-sweep workloads) into bench/results/append_sweep.png.
# Usage: bench/compare/chart.sh [compare.json] [out.png]   (needs gnuplot-nox)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
json=${1:-$here/../results/compare.json}
png=${2:-$here/../results/append_sweep.png}
data=$(mktemp)
trap 'rm -f "$data"' EXIT
python3 - "$json" >"$data" <<'PY'
import json, re, sys
d = json.load(open(sys.argv[1]))
rows = []
for r in d["results"]:
    m = re.fullmatch(r"append-sweep-(\d+)B", r["workload"])
    if m and r["metric"] == "MB/s":
        rows.append((int(m.group(1)), r["seglog"]["median"] or 0, r["kafka"]["median"] or 0))
for size, s, k in sorted(rows):
    print(size, s, k)
PY
gnuplot <<GP
set terminal pngcairo size 800,480 noenhanced
set output "$png"
set title "Append throughput by record size (16 KiB batches, uncompressed; same machine, medians)"
set xlabel "record value size (bytes)"
set ylabel "MB/s appended"
set logscale x
set key top left
set grid
plot "$data" using 1:2 with linespoints lw 2 title "seglog", \
     "$data" using 1:3 with linespoints lw 2 title "Kafka 4.4.0 (UnifiedLog)"
GP
echo "wrote $png"
