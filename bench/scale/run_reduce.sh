#!/usr/bin/env bash
# The reduce at scale (docs/scale.md § Figures): synthetic jobs of N ranks made from the two real
# straggler_data summaries (bench/scale/make_ranks.py: every rank's timing perturbed, one
# injected straggler at rank N*3/5), then `/usr/bin/time -v goblin ranks DIR --json` on each:
# wall time, CPU time (user + sys), peak RSS, whether the injected straggler is the one named, and
# the 1-minute load average of the machine when it ran (the dev VM is shared).
# Usage: bench/scale/run_reduce.sh BUILD_DIR OUT_CSV [N...]   (default N: 8 16 32 64 128 256 512 1024)
set -euo pipefail
B="${1:?usage: run_reduce.sh BUILD_DIR OUT_CSV [N...]}"
csv="${2:?usage: run_reduce.sh BUILD_DIR OUT_CSV [N...]}"
shift 2
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(8 16 32 64 128 256 512 1024)
root="$(cd "$(dirname "$0")/../.." && pwd)"
G="$(cd "$B" && pwd)/goblin"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
real="$root/examples/ddp_h200/straggler_data"
"$G" summarize "$real" -o "$work/real" > /dev/null
echo "ranks,straggler_injected,straggler_named,wall_s,cpu_s,max_rss_mb,summaries_mb,result_mb,load1" > "$csv"
for n in "${sizes[@]}"; do
  s=$((n * 3 / 5))
  python3 "$root/bench/scale/make_ranks.py" summaries "$work/real/rank0.summary.json.gz" \
    "$work/real/rank1.summary.json.gz" --ranks "$n" --straggler "$s" -o "$work/s$n"
  /usr/bin/time -v "$G" ranks "$work/s$n" --json > "$work/r$n.json" 2> "$work/t$n.txt" || true
  wall=$(grep "Elapsed (wall clock)" "$work/t$n.txt" | awk '{print $NF}' |
    awk -F: '{ if (NF == 3) print $1 * 3600 + $2 * 60 + $3; else print $1 * 60 + $2 }')
  rss=$(grep "Maximum resident set size" "$work/t$n.txt" | awk '{printf "%.1f", $NF / 1024}')
  cpu=$(awk -F': ' '/User time|System time/ {s += $2} END {printf "%.2f", s}' "$work/t$n.txt")
  load=$(cut -d' ' -f1 /proc/loadavg)
  named=$(python3 -c "import json,sys; r=json.load(open(sys.argv[1]))['result']['straggler']; print(r['rank'] if r['named'] else 'none')" "$work/r$n.json")
  smb=$(du -sm "$work/s$n" | cut -f1)
  rmb=$(python3 -c "import os,sys; print(round(os.path.getsize(sys.argv[1]) / 1e6, 2))" "$work/r$n.json")
  echo "$n,$s,$named,$wall,$cpu,$rss,$smb,$rmb,$load" | tee -a "$csv"
  rm -rf "$work/s$n"
done
