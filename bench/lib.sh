# Shared by the scale scripts (query_scale.sh, python_scale.sh): source it.
# The machine is shared, so each run starts from a warm page cache and the scripts compare ratios
# taken in one run only (bench/README.md).

# timed LABEL FILE CMD...: reads FILE once (warm page cache), runs CMD with its output discarded
# and prints "LABEL WALL_S PEAK_RSS_KB CPU_S" (CPU: user + system; on a loaded machine wall time
# measures the neighbours, CPU time what the process itself spent).
timed() {
  local label=$1 file=$2
  shift 2
  cat "$file" > /dev/null
  local tf; tf=$(mktemp)
  /usr/bin/time -o "$tf" -f "%e %M %U %S" "$@" > /dev/null 2>/dev/null
  local wall rss user sys; read -r wall rss user sys < <(tail -1 "$tf"); rm -f "$tf"
  echo "$label $wall $rss $(python3 -c "print(round($user + $sys, 2))")"
}

# report_runs WIDTH PYTHON: reads timed's lines on stdin, prints each run (label padded to WIDTH),
# then the median wall and CPU seconds per label; PYTHON (lines of Python) then prints the
# script's ratios from `m` (median wall s by label), `c` (median CPU s) and `rss` (peak KB, max).
report_runs() {
  local width=$1 ratios=$2 results
  results=$(cat)
  echo "$results" | awk -v w="$width" '{ f = "%-" w "s %7.2f s wall %7.2f s cpu %9d KB\n"; printf f, $1, $2, $4, $3 }'
  echo "$results" | python3 -c '
import statistics, sys
runs, cpus, rss = {}, {}, {}
for line in sys.stdin:
    label, wall, kb, cpu = line.split()
    runs.setdefault(label, []).append(float(wall))
    cpus.setdefault(label, []).append(float(cpu))
    rss[label] = max(rss.get(label, 0), int(kb))
m = {k: statistics.median(v) for k, v in runs.items()}
c = {k: statistics.median(v) for k, v in cpus.items()}
print("median wall s: " + "  ".join(f"{k} {v:.2f}" for k, v in m.items()))
print("median cpu s:  " + "  ".join(f"{k} {v:.2f}" for k, v in c.items()))
'"$ratios"
}
