#!/usr/bin/env bash
# The Python module's speed on the ~1 GB Kineto trace of bench/make_scale_files.sh, against
# `goblin info` and `goblin query` on the same file in the same run (the machine is shared: only
# ratios taken in one run mean anything). Each round, from a warm page cache:
#   import    python3 -c "import goblin"                         (the module and its registry)
#   info      goblin info FILE                                    (read the trace: the baseline)
#   cliquery  goblin query FILE "SELECT count(*) FROM gpu_ops"    (read + open + a first answer)
#   load      goblin.load(FILE)                                   (read + open the tables)
#   loadpd    the same with pandas imported first                 (as in a notebook)
#   frame     goblin.load(FILE).gpu_ops()                         (+ every GPU op as a DataFrame)
# and prints wall seconds, CPU seconds (user + system) and peak RSS per run, then the medians,
# load/info and frame - loadpd (the DataFrame itself, pandas' import not counted). On a loaded machine wall time measures the
# neighbours; CPU time is what the process itself spent.
# Usage: bench/python_scale.sh BUILD [FILE] [ROUNDS]   (BUILD: a build with GOBLIN_PYTHON=ON, Release;
#        FILE default bench/data/scale_kineto.json)
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
build="${1:?usage: bench/python_scale.sh BUILD [FILE] [ROUNDS]}"
file="${2:-$here/data/scale_kineto.json}"
rounds="${3:-3}"
py="$(sed -n 's/^GOBLIN_PYTHON_EXECUTABLE:FILEPATH=//p' "$build/CMakeCache.txt")"
[ -f "$file" ] || { echo "missing $file (bench/make_scale_files.sh makes it)" >&2; exit 3; }
[ -d "$build/python/goblin" ] || { echo "no Python module in $build (GOBLIN_PYTHON=ON)" >&2; exit 3; }
export PYTHONPATH="$build/python"
one() {  # label command...
  local label=$1
  shift
  cat "$file" > /dev/null
  local tf; tf=$(mktemp)
  /usr/bin/time -o "$tf" -f "%e %M %U %S" "$@" > /dev/null 2>/dev/null
  local wall rss user sys; read -r wall rss user sys < <(tail -1 "$tf"); rm -f "$tf"
  echo "$label $wall $rss $(python3 -c "print(round($user + $sys, 2))")"
}
echo "# $(date -u +%FT%TZ) $(uptime)"
results=$(for ((i = 0; i < rounds; i++)); do
  one import "$py" -c "import goblin"
  one info "$build/goblin" info "$file"
  one cliquery "$build/goblin" query "$file" "SELECT count(*) FROM gpu_ops"
  one load "$py" -c "import goblin, sys; goblin.load(sys.argv[1])" "$file"
  one loadpd "$py" -c "import goblin, pandas, sys; goblin.load(sys.argv[1])" "$file"
  one frame "$py" -c "import goblin, sys; print(len(goblin.load(sys.argv[1]).gpu_ops()))" "$file"
done)
echo "$results" | awk '{ printf "%-8s %7.2f s wall %7.2f s cpu %9d KB\n", $1, $2, $4, $3 }'
echo "$results" | python3 -c '
import statistics, sys
runs, cpus, rss = {}, {}, {}
for line in sys.stdin:
    label, wall, kb, cpu = line.split()
    runs.setdefault(label, []).append(float(wall))
    cpus.setdefault(label, []).append(float(cpu))
    rss.setdefault(label, []).append(int(kb))
m = {k: statistics.median(v) for k, v in runs.items()}
c = {k: statistics.median(v) for k, v in cpus.items()}
print("median wall s: " + "  ".join(f"{k} {v:.2f}" for k, v in m.items()))
print("median cpu s:  " + "  ".join(f"{k} {v:.2f}" for k, v in c.items()))
print("load / info = %.2f wall, %.2f cpu  (target <= 1.5)" % (m["load"] / m["info"], c["load"] / c["info"]))
print("gpu_ops() DataFrame alone (frame - loadpd) = %.2f s wall, %.2f s cpu  (target <= 1)"
      % (m["frame"] - m["loadpd"], c["frame"] - c["loadpd"]))
print("peak RSS: load / info = %.2f, frame / info = %.2f"
      % (max(rss["load"]) / max(rss["info"]), max(rss["frame"]) / max(rss["info"])))
'
