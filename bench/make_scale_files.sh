#!/usr/bin/env bash
# Builds the ~1 GB Kineto traces bench_ingest reads, from a real H100 fixture, into bench/data/
# (gitignored): scale_kineto.json (plain) and scale_kineto.json.gz (same content, gzip -6).
# Usage: bench/make_scale_files.sh [COPIES]   (default 46 copies of the 21.9 MB trace ≈ 1 GB)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/.." && pwd)"
fixtures="${GOBLIN_FIXTURES:-$root/tests/fixtures}"
tool="${GOBLIN_SCALE_TOOL:-$root/../shared/tools/scale_trace.py}"
src="$fixtures/kineto/h100_llama_fp32_eager_w0.json.gz"
copies="${1:-46}"
out="$here/data"
mkdir -p "$out"
[ -f "$src" ] || { echo "missing fixture $src (set GOBLIN_FIXTURES)" >&2; exit 3; }
[ -f "$tool" ] || { echo "missing $tool (set GOBLIN_SCALE_TOOL)" >&2; exit 3; }
echo "scaling $src x$copies -> $out/scale_kineto.json"
python3 "$tool" "$src" "$out/scale_kineto.json.tmp" "$copies"
mv "$out/scale_kineto.json.tmp" "$out/scale_kineto.json"
echo "compressing -> $out/scale_kineto.json.gz"
gzip -6 -c "$out/scale_kineto.json" > "$out/scale_kineto.json.gz.tmp"
mv "$out/scale_kineto.json.gz.tmp" "$out/scale_kineto.json.gz"
ls -l "$out"/scale_kineto.json "$out"/scale_kineto.json.gz
