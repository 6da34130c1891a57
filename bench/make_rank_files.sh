#!/usr/bin/env bash
# Builds the 8-rank `goblin ranks` benchmark input into bench/data/ranks8/ (gitignored): 8 Kineto
# traces of ~1 GB each, made from the real 2-rank DDP traces in examples/ddp_h200/ (H200, NCCL).
# The two real ranks are each repeated COPIES times with shifted timestamps and ids by
# ../shared/tools/scale_trace.py; ranks 2..7 are copies of them (rank k from real rank k % 2) with
# their distributedInfo rewritten to rank k of world size 8.
# Usage: bench/make_rank_files.sh [COPIES] [PAIR]   (default 53 copies of the ~19 MB rank = ~1 GB;
#        PAIR: the examples/ddp_h200 folder, default straggler_data)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/.." && pwd)"
tool="${GOBLIN_SCALE_TOOL:-$root/../shared/tools/scale_trace.py}"
copies="${1:-53}"
pair="${2:-straggler_data}"
src="$root/examples/ddp_h200/$pair"
out="$here/data/ranks8"
mkdir -p "$out"
[ -f "$tool" ] || { echo "missing $tool (set GOBLIN_SCALE_TOOL)" >&2; exit 3; }
for r in 0 1; do
  echo "scaling $src/rank$r x$copies -> $out/real_rank$r.json"
  python3 "$tool" "$src/rank$r.pt.trace.json.gz" "$out/real_rank$r.json.tmp" "$copies"
  mv "$out/real_rank$r.json.tmp" "$out/real_rank$r.json"
done
for k in 0 1 2 3 4 5 6 7; do
  r=$((k % 2))
  # distributedInfo sits on the first line (scale_trace.py writes the metadata on one line).
  sed "1s/\"rank\": $r, \"world_size\": 2/\"rank\": $k, \"world_size\": 8/" "$out/real_rank$r.json" \
    > "$out/rank$k.json.tmp"
  mv "$out/rank$k.json.tmp" "$out/rank$k.json"
done
rm -f "$out/real_rank0.json" "$out/real_rank1.json"
ls -l "$out"
