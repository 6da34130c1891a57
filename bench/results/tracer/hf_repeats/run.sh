#!/usr/bin/env bash
# Issue 30, session of 2026-11-26 (evening): is the audit's cupti-vs-torch range difference on the
# HF Trainer larger than the same tracer's run-to-run spread? 4 goblin profile recordings per tracer
# of workloads/tracer_checks/hf_bf16.yaml (2 recorded steps after 8 warm-up steps, as the committed
# pair), order c t t c c t t c; the audits run on CPU afterwards.
# command (from the repo root; this file as .dev/s43/run.sh beside .dev/s43/carry.tar.xz = tar -cJf of
# .carry from scripts/device_pack build build/libgoblin_cupti.so; the device tool carries .dev/s43):
#   bash .dev/s43/run.sh
set -u
[ -f .dev/s43/carry.tar.xz ] && tar -xJf .dev/s43/carry.tar.xz
T0=$(date +%s); el() { echo "[t=$(( $(date +%s) - T0 )) s]"; }
mkdir -p /tmp/gbin; printf '#!/bin/sh\nLD_LIBRARY_PATH=%s exec %s "$@"\n' $PWD/.carry/lib $PWD/.carry/goblin > /tmp/gbin/goblin; chmod +x /tmp/gbin/goblin
export PYTHONUNBUFFERED=1 GOBLIN_HOOK_DIR=$PWD/workloads/goblin_hook
{
nvidia-smi -L; python3 -c "import torch;print(torch.__version__)"
i=0
for tr in cupti torch torch cupti cupti torch torch cupti; do
  i=$((i+1)); d=/tmp/prof_$i; rm -rf $d
  echo "== $i $tr"
  timeout 200 /tmp/gbin/goblin profile workloads/tracer_checks/hf_bf16.yaml --tracer $tr --steps 2 --warmup 8 -o $d > $OUT/prof_${i}_$tr.log 2>&1
  echo "exit $?"; tail -2 $OUT/prof_${i}_$tr.log
  cp $d/run.json $OUT/prof_${i}_${tr}_run.json 2>/dev/null; cp $d/hook.json $OUT/prof_${i}_${tr}_hook.json 2>/dev/null
  [ -f $d/trace.json.gz ] && cp $d/trace.json.gz $OUT/prof_${i}_$tr.json.gz
  el
  [ $(( $(date +%s) - T0 )) -gt 480 ] && break
done
} 2>&1 | tee $OUT/device_stdout.txt
