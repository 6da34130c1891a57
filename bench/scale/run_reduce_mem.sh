#!/usr/bin/env bash
# What the top reduce holds as the job grows (docs/scale.md § What the top reduce holds): for each
# N, bench/scale/run_reduce2.sh (N synthetic rank summaries, one injected straggler; one level:
# `goblin ranks` over the N summaries; two levels: `summarize --merge` of each G, then `goblin
# ranks` over the groups; both results compared whole), its rows gathered into one CSV: wall, CPU
# (user + sys) and peak RSS of each level, the straggler named, the 1-minute load average.
# Usage: bench/scale/run_reduce_mem.sh BUILD_DIR OUT_CSV [G] [N...]
#        (default G 32, N: 8 64 256 1024; 10000 is ~1 minute of CPU and ~150 MB of summaries)
set -euo pipefail
B="${1:?usage: run_reduce_mem.sh BUILD_DIR OUT_CSV [G] [N...]}"
csv="${2:?usage: run_reduce_mem.sh BUILD_DIR OUT_CSV [G] [N...]}"
g="${3:-32}"
shift $(($# >= 3 ? 3 : 2))
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(8 64 256 1024)
here="$(cd "$(dirname "$0")" && pwd)"
part="$(mktemp)"
trap 'rm -f "$part"' EXIT
first=1
for n in "${sizes[@]}"; do
  "$here/run_reduce2.sh" "$B" "$part" "$n" "$g" >&2
  if [ $first = 1 ]; then head -1 "$part" > "$csv"; first=0; fi
  tail -n +2 "$part" | tee -a "$csv"
done
