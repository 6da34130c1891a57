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
# and prints wall seconds, CPU seconds and peak RSS per run (bench/lib.sh), then the medians,
# load/info and frame - loadpd (the DataFrame itself, pandas' import not counted).
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
. "$here/lib.sh"
one() {  # label command...
  local label=$1
  shift
  timed "$label" "$file" "$@"
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
echo "$results" | report_runs 8 '
print("load / info = %.2f wall, %.2f cpu  (target <= 1.5)" % (m["load"] / m["info"], c["load"] / c["info"]))
print("gpu_ops() DataFrame alone (frame - loadpd) = %.2f s wall, %.2f s cpu  (target <= 1)"
      % (m["frame"] - m["loadpd"], c["frame"] - c["loadpd"]))
print("peak RSS: load / info = %.2f, frame / info = %.2f" % (rss["load"] / rss["info"], rss["frame"] / rss["info"]))
'
