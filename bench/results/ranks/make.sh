#!/usr/bin/env bash
# Regenerates this folder: `goblin ranks` (text and --json) on each pair of real 2-rank DDP traces in
# examples/ddp_h200/ (`goblin diff` of the H100 Llama pair: bench/results/diff_h100_llama/make.sh).
# Run from the repository root after building: bench/results/ranks/make.sh [BUILD_DIR]
set -uo pipefail
B="${1:-build}"
out="bench/results/ranks"
for pair in examples/ddp_h200/*/; do
  n=$(basename "$pair")
  "$B/goblin" ranks "$pair" > "$out/$n.txt" 2>&1; echo "exit $?" >> "$out/$n.txt"
  "$B/goblin" ranks "$pair" --json > "$out/$n.json" 2>/dev/null
done
ls -l "$out"
