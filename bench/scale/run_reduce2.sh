#!/usr/bin/env bash
# The two-level reduce against one level (docs/scale.md § Two-level reduce): N synthetic rank
# summaries (bench/scale/make_ranks.py, as run_reduce.sh: timing perturbed, one injected
# straggler at rank N*3/5), then
#   one level:  goblin ranks SUMMARIES --json
#   two levels: goblin summarize --merge over each G summaries (in byte order of their names; the
#               Slurm group array takes version order, which changes which ranks share a group,
#               not the work; run one after another here) -> GROUPS, then goblin ranks GROUPS --json
# each under /usr/bin/time -v: wall, CPU (user + sys), peak RSS; for the group level the sum of
# wall and CPU over its tasks and the largest peak. Checks that both results are equal and name
# the injected straggler. Prints and writes CSV rows (the 1-minute load average with each).
# Usage: bench/scale/run_reduce2.sh BUILD_DIR OUT_CSV [N] [G]   (default 1024 ranks, groups of 32)
set -euo pipefail
B="${1:?usage: run_reduce2.sh BUILD_DIR OUT_CSV [N] [G]}"
csv="${2:?usage: run_reduce2.sh BUILD_DIR OUT_CSV [N] [G]}"
n="${3:-1024}"
g="${4:-32}"
root="$(cd "$(dirname "$0")/../.." && pwd)"
G="$(cd "$B" && pwd)/goblin"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
real="$root/examples/ddp_h200/straggler_data"
"$G" summarize "$real" -o "$work/real" > /dev/null
s=$((n * 3 / 5))
python3 "$root/bench/scale/make_ranks.py" summaries "$work/real/rank0.summary.json.gz" \
  "$work/real/rank1.summary.json.gz" --ranks "$n" --straggler "$s" -o "$work/s" > /dev/null
timed() {  # TIME_TXT STDOUT_FILE CMD... -> "wall cpu rss_kb"
  local t=$1 o=$2
  shift 2
  /usr/bin/time -o "$t" -f "%e %U %S %M" "$@" > "$o"
  awk '{printf "%s %.2f %s\n", $1, $2 + $3, $4}' "$t"
}
echo "level,ranks,group_size,tasks,files_read,mb_read,wall_s,cpu_s,max_rss_mb,straggler_injected,straggler_named,load1" > "$csv"
row() { echo "$1" | tee -a "$csv"; }
load() { cut -d' ' -f1 /proc/loadavg; }
named() {
  python3 -c "import json,sys; r=json.load(open(sys.argv[1]))['result']['straggler']; print(r['rank'] if r['named'] else 'none')" "$1"
}
mb() { du -sm --apparent-size "$1" | cut -f1; }
# One level.
read -r w c k < <(timed "$work/t1" "$work/one.json" "$G" ranks "$work/s" --json)
row "one,$n,,1,$n,$(mb "$work/s"),$w,$c,$((k / 1024)),$s,$(named "$work/one.json"),$(load)"
# Two levels: the group tasks.
mapfile -t all < <(find "$work/s" -maxdepth 1 -type f -name '*.summary.json.gz' | LC_ALL=C sort)
tw=0 tc=0 tk=0 tasks=0
for ((i = 0; i < ${#all[@]}; i += g)); do
  read -r w c k < <(timed "$work/tg" /dev/null "$G" summarize --merge "${all[@]:i:g}" -o "$work/groups")
  tw=$(python3 -c "print(round($tw + $w, 2))")
  tc=$(python3 -c "print(round($tc + $c, 2))")
  tk=$((k > tk ? k : tk))
  tasks=$((tasks + 1))
done
row "groups,$n,$g,$tasks,$n,$(mb "$work/s"),$tw,$tc,$((tk / 1024)),$s,,$(load)"
read -r w c k < <(timed "$work/t2" "$work/two.json" "$G" ranks "$work/groups" --json)
row "final,$n,$g,1,$tasks,$(mb "$work/groups"),$w,$c,$((k / 1024)),$s,$(named "$work/two.json"),$(load)"
python3 - "$work/one.json" "$work/two.json" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
print("results equal: " + ("yes" if a == b else "NO"))
sys.exit(0 if a == b else 1)
PY
