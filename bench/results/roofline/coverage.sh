#!/bin/bash
# Roofline coverage of every trace under tests/fixtures and examples/ that `goblin roofline` reads
# in trace mode: one line per trace, "share {unmodelled us by class} gpu_op_us  path[@gpu]".
# Traces that name no GPU of the spec database are read with --gpu H100-SXM (coverage does not
# depend on the GPU, the roofs do). Run from the repository root: bench/results/roofline/coverage.sh [GOBLIN]
goblin=${1:-build/goblin}
find tests/fixtures examples -type f \( -name '*.json' -o -name '*.json.gz' -o -name '*.csv' -o -name '*.sqlite' -o -name '*.db' \) | sort |
  while read -r f; do
    gpu=""
    out=$("$goblin" roofline "$f" --json 2>/dev/null)
    if echo "$out" | grep -q '"not_found"'; then
      gpu=H100-SXM
      out=$("$goblin" roofline "$f" --gpu $gpu --json 2>/dev/null)
    fi
    echo "$out" | F="$f" G="$gpu" python3 -c '
import json, os, sys
try:
    r = json.load(sys.stdin).get("result") or {}
except ValueError:
    sys.exit(0)
if "unmodelled_share" not in r:
    sys.exit(0)
c = r["coverage"]
by = {k: round(v, 3) for k, v in sorted(c["unmodelled_us_by_category"].items())}
print(r["unmodelled_share"], json.dumps(by), round(c["gpu_op_time_us"], 3), " " + os.environ["F"] + ("@" + os.environ["G"] if os.environ["G"] else ""))
'
  done
