# Shared by the scale scripts (query_scale.sh, python_scale.sh): source it.
# The machine is shared, so each run starts from a warm page cache and the scripts compare ratios
# taken in one run only (bench/README.md).

# timed LABEL FILE CMD...: reads FILE once (warm page cache), runs CMD with its output discarded
# and prints "LABEL WALL_S PEAK_RSS_KB".
timed() {
  local label=$1 file=$2
  shift 2
  cat "$file" > /dev/null
  local tf; tf=$(mktemp)
  /usr/bin/time -o "$tf" -f "%e %M" "$@" > /dev/null 2>/dev/null
  local out; out=$(tail -1 "$tf"); rm -f "$tf"
  echo "$label ${out% *} ${out#* }"
}

# report_runs WIDTH PYTHON: reads timed's lines on stdin, prints each run (label padded to WIDTH),
# then the median wall seconds per label; PYTHON (lines of Python) then prints the script's
# ratios from `m`, the medians by label.
report_runs() {
  local width=$1 ratios=$2 results
  results=$(cat)
  echo "$results" | awk -v w="$width" '{ f = "%-" w "s %7.2f s %9d KB\n"; printf f, $1, $2, $3 }'
  echo "$results" | python3 -c '
import statistics, sys
runs = {}
for line in sys.stdin:
    label, wall, _ = line.split()
    runs.setdefault(label, []).append(float(wall))
m = {k: statistics.median(v) for k, v in runs.items()}
print("median s: " + "  ".join(f"{k} {v:.2f}" for k, v in m.items()))
'"$ratios"
}
