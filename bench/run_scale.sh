#!/usr/bin/env bash
# Back-to-back ingest and `goblin ranks` timings of two goblin binaries (a baseline and a new one),
# interleaved run by run so load from other users hits both alike, each from a warm page cache.
# Prints one line per run:
#   which  what  wall_s  peak_rss_kb  MB/s(JSON bytes, 10^6)  load(1 min)
# Usage: bench/run_scale.sh BASE_BIN NEW_BIN [RUNS] [WHAT...]
#   WHAT: plain gz ranks (default: all). Inputs from bench/make_scale_files.sh and
#   bench/make_rank_files.sh (bench/data/).
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
base="${1:?usage: bench/run_scale.sh BASE_BIN NEW_BIN [RUNS] [WHAT...]}"
new="${2:?usage: bench/run_scale.sh BASE_BIN NEW_BIN [RUNS] [WHAT...]}"
runs="${3:-3}"
shift 3 2>/dev/null || shift $#
what=("$@")
[ ${#what[@]} -eq 0 ] && what=(plain gz ranks)
d="$here/data"
plain="$d/scale_kineto.json"
gz="$d/scale_kineto.json.gz"
ranks="$d/ranks8"
json_bytes=$(stat -c %s "$plain" 2>/dev/null || echo 0)
one() {  # which bin what
  local which=$1 bin=$2 w=$3 args bytes
  case $w in
    plain) args=(info "$plain"); bytes=$json_bytes ;;
    gz) args=(info "$gz"); bytes=$json_bytes ;;
    ranks) args=(ranks "$ranks"); bytes=$(du -cb "$ranks"/*.json | tail -1 | cut -f1) ;;
  esac
  # Warm the page cache first: these VMs drop it within seconds to minutes (fincore showed a
  # 0.94 GB input going from all cached to 3 % cached between runs), and a run that reads from
  # disk measures the disk, not goblin. Both binaries get the same treatment.
  case $w in
    plain) cat "$plain" > /dev/null ;;
    gz) cat "$gz" > /dev/null ;;
    ranks) cat "$ranks"/*.json > /dev/null ;;
  esac
  local load; load=$(cut -d' ' -f1 /proc/loadavg)
  local tf; tf=$(mktemp)
  /usr/bin/time -o "$tf" -f "%e %M" "$bin" "${args[@]}" >/dev/null 2>/dev/null
  local out; out=$(tail -1 "$tf"); rm -f "$tf"
  local wall=${out% *} rss=${out#* }
  awk -v w="$which" -v what="$w" -v s="$wall" -v r="$rss" -v b="$bytes" -v l="$load" \
    'BEGIN { printf "%-5s %-6s %7.2f s %9d KB %8.0f MB/s  load %s\n", w, what, s, r, b / 1e6 / s, l }'
}
echo "# $(date -u +%FT%TZ) $(uptime)"
for ((i = 0; i < runs; i++)); do
  for w in "${what[@]}"; do
    one base "$base" "$w"
    one new "$new" "$w"
  done
done
