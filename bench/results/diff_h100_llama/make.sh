#!/usr/bin/env bash
# Regenerates this folder: `goblin diff` of the two H100 Llama recordings in examples/h100_llama/
# (text and --json). Run from the repository root after building:
# bench/results/diff_h100_llama/make.sh [BUILD_DIR]
set -uo pipefail
B="${1:-build}"
out="bench/results/diff_h100_llama"
before=examples/h100_llama/h100_llama_fp32_eager_w0.json.gz
after=examples/h100_llama/h100_llama_bf16_sdpa_w4.json.gz
"$B/goblin" diff "$before" "$after" > "$out/diff_h100_llama.txt" 2>&1
"$B/goblin" diff "$before" "$after" --json > "$out/diff_h100_llama.json" 2>/dev/null
ls -l "$out"
