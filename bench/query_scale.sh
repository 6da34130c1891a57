#!/usr/bin/env bash
# `goblin query` speed on the ~1 GB Kineto trace of bench/make_scale_files.sh, against `goblin info`
# on the same file in the same run (the machine is shared: only ratios taken in one run mean
# anything). Each round, from a warm page cache:
#   info      goblin info FILE                          (read the trace: the baseline)
#   first     goblin query FILE "SELECT count(*) ..."   (read + open the tables + a first answer)
#   open      goblin query FILE "SELECT 1"              (read + open, no scan)
#   group     goblin query FILE "SELECT name, count(*), sum(dur_ns) FROM gpu_ops GROUP BY name"
# and prints wall seconds and peak RSS per run, then the medians, first/info, and group - open
# (the GROUP BY itself, over every GPU op).
# Usage: bench/query_scale.sh GOBLIN [FILE] [ROUNDS]   (FILE default bench/data/scale_kineto.json)
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
bin="${1:?usage: bench/query_scale.sh GOBLIN [FILE] [ROUNDS]}"
file="${2:-$here/data/scale_kineto.json}"
rounds="${3:-3}"
[ -f "$file" ] || { echo "missing $file (bench/make_scale_files.sh makes it)" >&2; exit 3; }
group_sql="SELECT name, count(*) AS n, sum(dur_ns) AS ns FROM gpu_ops GROUP BY name ORDER BY ns DESC LIMIT 5"
. "$here/lib.sh"
one() {  # label args...
  local label=$1
  shift
  timed "$label" "$file" "$bin" "$@"
}
echo "# $(date -u +%FT%TZ) $(uptime)"
echo "# gpu_ops: $("$bin" query "$file" "SELECT count(*) FROM gpu_ops" --format csv | tail -1)"
results=$(for ((i = 0; i < rounds; i++)); do
  one info info "$file"
  one first query "$file" "SELECT count(*) FROM gpu_ops"
  one open query "$file" "SELECT 1"
  one group query "$file" "$group_sql"
done)
echo "$results" | report_runs 6 '
print("first query / info = %.2f  (target <= 2)" % (m["first"] / m["info"]))
print("GROUP BY name alone (group - open) = %.2f s" % (m["group"] - m["open"]))
'
