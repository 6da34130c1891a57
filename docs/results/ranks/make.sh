#!/usr/bin/env bash
# Regenerates this folder: `goblin ranks` (text and --json) on each pair of real 2-rank DDP traces in
# examples/ddp_h200/, and `goblin diff` of the two H100 Llama recordings. Run from the repository
# root after building: docs/results/ranks/make.sh [BUILD_DIR]
set -uo pipefail
B="${1:-build}"
out="docs/results/ranks"
for pair in examples/ddp_h200/*/; do
  n=$(basename "$pair")
  "$B/goblin" ranks "$pair" > "$out/$n.txt" 2>&1; echo "exit $?" >> "$out/$n.txt"
  "$B/goblin" ranks "$pair" --json > "$out/$n.json" 2>/dev/null
done
"$B/goblin" diff examples/h100_llama/h100_llama_fp32_eager_w0.json.gz examples/h100_llama/h100_llama_bf16_sdpa_w4.json.gz \
  > "$out/../diff_h100_llama.txt" 2>&1
"$B/goblin" diff examples/h100_llama/h100_llama_fp32_eager_w0.json.gz examples/h100_llama/h100_llama_bf16_sdpa_w4.json.gz \
  --json > "$out/../diff_h100_llama.json" 2>/dev/null
ls -l "$out"
