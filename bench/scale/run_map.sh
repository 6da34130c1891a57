#!/usr/bin/env bash
# The map's throughput (docs/scale.md § Figures): one large rank trace (the real straggler_data
# rank 0 repeated COPIES times by ../shared/tools/scale_trace.py, plain JSON), read by
# `goblin summarize` and by `goblin info` (goblin's ingest) in turns, ROUNDS times each, under
# /usr/bin/time -v: MB/s over the JSON bytes, per wall second and per CPU second, peak RSS, and
# the summary's size.
# Usage: bench/scale/run_map.sh BUILD_DIR OUT_CSV [COPIES] [ROUNDS]   (default 16 copies ≈ 300 MB, 3 rounds)
set -euo pipefail
B="${1:?usage: run_map.sh BUILD_DIR OUT_CSV [COPIES] [ROUNDS]}"
csv="${2:?usage: run_map.sh BUILD_DIR OUT_CSV [COPIES] [ROUNDS]}"
copies="${3:-16}"
rounds="${4:-3}"
root="$(cd "$(dirname "$0")/../.." && pwd)"
G="$(cd "$B" && pwd)/goblin"
tool="${GOBLIN_SCALE_TOOL:-$root/../shared/tools/scale_trace.py}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
trace="$work/rank0.json"
python3 "$tool" "$root/examples/ddp_h200/straggler_data/rank0.pt.trace.json.gz" "$trace" "$copies" > /dev/null
bytes=$(stat -c %s "$trace")
echo "verb,round,trace_mb,wall_s,cpu_s,mb_per_s_wall,mb_per_s_cpu,max_rss_mb,summary_bytes" > "$csv"
measure() {  # verb round cmd...
  local verb=$1 round=$2
  shift 2
  /usr/bin/time -v "$@" > /dev/null 2> "$work/t.txt" || true
  python3 - "$verb" "$round" "$bytes" "$work/t.txt" "$work/out" >> "$csv" <<'PY'
import os, sys
verb, rnd, nbytes, tfile, out = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5]
t = {}
for line in open(tfile):
    if ":" in line:
        k, v = line.strip().rsplit(":", 1) if "wall clock" not in line else (line.split("):")[0], line.split("):")[1])
        t[k.strip()] = v.strip()
wall = t["Elapsed (wall clock) time (h:mm:ss or m:ss"]
parts = [float(x) for x in wall.split(":")]
wall_s = parts[-1] + 60 * parts[-2] + (3600 * parts[-3] if len(parts) == 3 else 0)
cpu_s = float(t["User time (seconds)"]) + float(t["System time (seconds)"])
rss = int(t["Maximum resident set size (kbytes)"]) / 1024
mb = nbytes / 1e6
summ = ""
if verb == "summarize":
    summ = sum(os.path.getsize(os.path.join(out, f)) for f in os.listdir(out))
print(f"{verb},{rnd},{mb:.1f},{wall_s:.2f},{cpu_s:.2f},{mb / wall_s:.1f},{mb / cpu_s:.1f},{rss:.0f},{summ}")
PY
}
for r in $(seq 1 "$rounds"); do
  rm -rf "$work/out"
  measure summarize "$r" "$G" summarize "$trace" -o "$work/out"
  measure info "$r" "$G" info "$trace" --json
done
cat "$csv"
# The medians over the rounds, and summarize's rate per CPU second against info's (docs/scale.md:
# the target is 1.0x; CPU seconds, not wall, since the dev VM is shared).
python3 - "$csv" <<'PY'
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1])))
med = {v: statistics.median(float(r["mb_per_s_cpu"]) for r in rows if r["verb"] == v) for v in ("summarize", "info")}
print(f"median MB per CPU second: summarize {med['summarize']:.0f}, info {med['info']:.0f}: "
      f"{med['summarize'] / med['info']:.2f}x")
PY
