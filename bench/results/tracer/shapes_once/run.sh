#!/usr/bin/env bash
# Issue 30, session of 2026-11-27 (one H100 call): the shipped default (input shapes and nn.Modules
# in each window's first recorded step, names after it: GOBLIN_TRACER_SHAPES=first) against its
# parts on the HF Trainer, tuned_compile.yaml and base.yaml once with it, torch.profiler's windows
# side by side (configurations alternating window by window in one process, as session_2026-11-26c);
# the callback-record and list-input-type fixes checked on a recorded trace; one goblin profile
# window of each tracer on base.yaml and the HF Trainer for the audit comparison (CPU afterwards).
# The device runs the session's main checkout, so this branch's parts travel in the carried, ignored
# .dev/tracer30c/: carry.tar.xz (scripts/device_pack build build/libgoblin_cupti.so, the folder
# renamed carry/), goblin_hook/, tracer_checks/, device.sh and this script;
# command: bash .dev/tracer30c/run.sh
set -u
REAL=$OUT; export OUT=/tmp/o4; W=$OUT/w; mkdir -p $W
export DEV=.dev/tracer30c TORCH_EXTENSIONS_DIR=/tmp/goblin_ext PYTHONUNBUFFERED=1
HOOK=$PWD/$DEV/goblin_hook LIB=$PWD/$DEV/carry/libgoblin_cupti.so
export GOBLIN_HOOK_DIR=$HOOK  # goblin profile: this branch's hook, not the checkout's
T0=$(date +%s); el() { echo "[t=$(( $(date +%s) - T0 )) s]"; }
left() { [ $(( $(date +%s) - T0 )) -lt "$1" ]; }  # left N: fewer than N s used so far
K=kernel,memcpy,memset,sync,marker,overhead
win() {  # win NAME K VARIANTS CMD...: K windows (5 unrecorded steps timed, then 5 recorded)
  local n=$1 k=$2 v=$3; shift 3; local d=/tmp/win_$n; rm -rf $d; mkdir -p $d/cupti
  echo "== win $n x$k"
  env GOBLIN_PROFILE=1 GOBLIN_PROFILE_OUT=$d GOBLIN_TRACER=cupti CUDA_INJECTION64_PATH=$LIB NVTX_INJECTION64_PATH=$LIB \
      GOBLIN_CUPTI_DIR=$d/cupti GOBLIN_CUPTI_START_PAUSED=1 GOBLIN_CUPTI_PAUSE=disable GOBLIN_CUPTI_DETACH=1 \
      GOBLIN_PROFILE_WAIT=8 GOBLIN_PROFILE_ACTIVE=5 GOBLIN_PROFILE_COMPARE=5 GOBLIN_PROFILE_WINDOWS=$k \
      GOBLIN_PROFILE_VARIANTS="$v" PYTHONPATH=$HOOK timeout ${WT:-200} "$@" > $W/win_$n.log 2>&1
  echo "exit $?"; grep -iE "error|exception" $W/win_$n.log | head -3
  cp $d/hook.json $W/win_${n}_hook.json; python3 $DEV/tracer_checks/variant_stats.py $W/win_${n}_hook.json
  local tr; tr=$(ls -S $d/cupti/goblin_cupti_*.json.gz 2>/dev/null | head -1); [ -n "$tr" ] || return
  ls -la $tr | awk '{print "  trace bytes", $5}'
  /tmp/gbin/goblin trace --summary $tr --json > $W/win_${n}_summary.json 2>&1
  python3 $DEV/tracer_checks/check_fixes.py $tr > $W/fixes_$n.json 2>&1; cat $W/fixes_$n.json
  [ "$(stat -c %s $tr)" -lt "${KEEP:-0}" ] && cp $tr $REAL/win_$n.json.gz
}
tw() {  # tw NAME K CMD...: K torch.profiler windows (CPU + CUDA, shapes), the same step positions
  local n=$1 k=$2; shift 2; local d=/tmp/tw_$n; rm -rf $d; mkdir -p $d
  echo "== torch windows $n x$k"
  env GOBLIN_PROFILE=1 GOBLIN_PROFILE_OUT=$d GOBLIN_PROFILE_WAIT=8 GOBLIN_PROFILE_ACTIVE=5 GOBLIN_PROFILE_COMPARE=5 \
      GOBLIN_PROFILE_WINDOWS=$k PYTHONPATH=$HOOK timeout ${WT:-200} "$@" > $W/tw_$n.log 2>&1
  echo "exit $?"; cp $d/hook.json $W/tw_${n}_hook.json; python3 $DEV/tracer_checks/variant_stats.py $W/tw_${n}_hook.json
}
prof() {  # prof NAME CFG STEPS: goblin profile with each tracer (the audit comparison's traces)
  local n=$1 cfg=$2 s=$3
  for tr in cupti torch; do
    local d=/tmp/prof_${n}_$tr; rm -rf $d
    echo "== profile $n $tr"
    timeout 200 /tmp/gbin/goblin profile $cfg --tracer $tr --steps $s --warmup 8 -o $d > $W/prof_${n}_$tr.log 2>&1
    echo "exit $?"; tail -2 $W/prof_${n}_$tr.log
    cp $d/run.json $W/prof_${n}_${tr}_run.json 2>/dev/null; cp $d/hook.json $W/prof_${n}_${tr}_hook.json 2>/dev/null
    [ -f $d/trace.json.gz ] && { ls -la $d/trace.json.gz | awk '{print "  trace bytes", $5}'; cp $d/trace.json.gz $REAL/prof_${n}_$tr.json.gz; }
  done
}
[ -f $DEV/carry.tar.xz ] && tar -xJf $DEV/carry.tar.xz -C $DEV
{
nvidia-smi -L; python3 -c "import torch;print(torch.__version__)"
mkdir -p /tmp/gbin; printf '#!/bin/sh\nLD_LIBRARY_PATH=%s exec %s "$@"\n' $PWD/$DEV/carry/lib $PWD/$DEV/carry/goblin > /tmp/gbin/goblin; chmod +x /tmp/gbin/goblin
bash $DEV/device.sh obsbuild; el
# 1. HF Trainer: the default and its parts, 6 configurations x 5 windows alternating
sed 's/^max_steps: 60/max_steps: 480/' $DEV/tracer_checks/hf_bf16.yaml > /tmp/hf480.yaml
V="off=off;cupti=all|launch|0;names_nomod=all|launch|names+nomod;names=all|launch|names"
V="$V;default=all|launch|shapes+shapes1;shapes_every=all|launch|shapes"
WT=240 win hf 30 "$V" python3 workloads/hf_trainer/train_hf.py /tmp/hf480.yaml; el
sed 's/^max_steps: 60/max_steps: 90/' $DEV/tracer_checks/hf_bf16.yaml > /tmp/hf90.yaml
left 250 && { tw hf 5 python3 workloads/hf_trainer/train_hf.py /tmp/hf90.yaml; el; }
# 2. the audit comparison's traces: goblin profile with each tracer, a few steps
left 300 && { prof base workloads/configs/base.yaml 3; el; }
left 340 && { prof hf $DEV/tracer_checks/hf_bf16.yaml 2; el; }
# 3. tuned_compile and base once with the default (+ callback launch records for the fix check)
TC="python3 workloads/train.py workloads/configs/tuned_compile.yaml --warmup 10 --result /tmp/r.json --steps"
left 420 && { KEEP=40000000 win tuned 15 "off=off;default=all|launch|shapes+shapes1;cb_default=$K,cb|launch|shapes+shapes1" $TC 230; el; }
left 480 && { win base 10 "off=off;default=all|launch|shapes+shapes1" python3 workloads/train.py workloads/configs/base.yaml --warmup 10 --result /tmp/rb.json --steps 150; el; }
left 520 && { WT=60 tw tuned 5 $TC 80; el; }
left 545 && { WT=45 tw base 5 python3 workloads/train.py workloads/configs/base.yaml --warmup 10 --result /tmp/rb.json --steps 75; el; }
} 2>&1 | tee $REAL/device_stdout.txt
tar -czf $REAL/results.tgz -C $W . 2>/dev/null; true
