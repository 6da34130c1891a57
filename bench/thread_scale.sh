#!/usr/bin/env bash
# The thread-scaling run of bench/results/scale_threads: stacks ~10 GB of a real H100 Kineto trace
# (bench/scale/stack_kineto.py, on every core), then goblin info and triage at 1, 2, 4, 8 and 16
# threads (bench/thread_scale.py), and info at 16 threads with the file mapped (GOBLIN_KINETO_MAP=1).
# Usage: bench/thread_scale.sh GOBLIN OUT_DIR [COPIES] [WORK_DIR]   (494 copies of 20.3 MB ≈ 10 GB)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
goblin="$1"; out="$2"; copies="${3:-494}"; work="${4:-$here/data}"
mkdir -p "$out" "$work"
trace="$work/threads_kineto.json"
SECONDS=0
timeout 200 python3 "$here/scale/stack_kineto.py" "$here/../tests/fixtures/kineto/h100_llama_fp32_eager_w0.json.gz" \
  "$trace" "$copies"
echo "stacked $(stat -c %s "$trace") bytes in ${SECONDS} s"
cat "$trace" > /dev/null  # in the page cache before the first timed run
python3 "$here/thread_scale.py" --goblin "$goblin" --trace "$trace" --out "$out" --timeout 100 || true
GOBLIN_KINETO_MAP=1 python3 "$here/thread_scale.py" --goblin "$goblin" --trace "$trace" --out "$out/mapped" \
  --verbs info --threads 16 --timeout 60 || true
rm -rf "$out/work" "$out/mapped/work"
nproc; lscpu | grep -E 'Model name|^CPU\(s\)|Thread|Socket' || true; free -g | head -2
