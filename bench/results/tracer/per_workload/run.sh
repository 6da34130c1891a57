#!/usr/bin/env bash
# Issue 30, third session of 2026-11-26: where the HF Trainer's CUPTI cost goes (tracer
# configurations alternating window by window in one process: GOBLIN_PROFILE_VARIANTS), the 5 %
# target per workload, torch.profiler's window side by side (bench/results/tracer/README.md).
set -u
REAL=$OUT; export OUT=/tmp/o3; W=$OUT/w; mkdir -p $W
export DEV=.dev/tracer30c TORCH_EXTENSIONS_DIR=/tmp/goblin_ext PYTHONUNBUFFERED=1
HOOK=$PWD/$DEV/goblin_hook LIB=$PWD/$DEV/carry/libgoblin_cupti.so
T0=$(date +%s); el() { echo "[t=$(( $(date +%s) - T0 )) s]"; }
K=kernel,memcpy,memset,sync,marker,overhead
# win NAME K VARIANTS CMD...: K windows (5 unrecorded steps timed, then 5 recorded, 8 steps apart)
# under the hook as goblin profile --tracer cupti runs it; the trace's per-attach summaries kept.
win() {
  local n=$1 k=$2 v=$3; shift 3; local d=/tmp/win_$n; rm -rf $d; mkdir -p $d/cupti
  echo "== win $n x$k"
  env GOBLIN_PROFILE=1 GOBLIN_PROFILE_OUT=$d GOBLIN_TRACER=cupti CUDA_INJECTION64_PATH=$LIB NVTX_INJECTION64_PATH=$LIB \
      GOBLIN_CUPTI_DIR=$d/cupti GOBLIN_CUPTI_START_PAUSED=1 GOBLIN_CUPTI_PAUSE=disable GOBLIN_CUPTI_DETACH=1 \
      GOBLIN_PROFILE_WAIT=8 GOBLIN_PROFILE_ACTIVE=5 GOBLIN_PROFILE_COMPARE=5 GOBLIN_PROFILE_WINDOWS=$k \
      GOBLIN_PROFILE_VARIANTS="$v" PYTHONPATH=$HOOK timeout 300 "$@" > $W/win_$n.log 2>&1
  echo "exit $?"; grep -iE "error|exception" $W/win_$n.log | head -3
  cp $d/hook.json $W/win_${n}_hook.json
  local tr; tr=$(ls -S $d/cupti/goblin_cupti_*.json.gz 2>/dev/null | head -1); [ -n "$tr" ] || return
  ls -la $tr | awk '{print "  trace bytes", $5}'
  zcat $tr | head -c 4000000 | python3 -c "import sys,re;t=sys.stdin.read();i=t.find('\"goblin_tracer_attaches\"');j=t.find('\n',i);open('$W/attaches_$n.json','w').write(t[i+26:j].rstrip(','))"
  /tmp/gbin/goblin trace --summary $tr --json > $W/win_${n}_summary.json 2>&1
  [ "$(stat -c %s $tr)" -lt "${KEEP:-0}" ] && cp $tr $REAL/win_$n.json.gz
}
tw() {  # tw NAME K CMD...: K torch.profiler windows (CPU + CUDA, shapes), the same step positions
  local n=$1 k=$2; shift 2; local d=/tmp/tw_$n; rm -rf $d; mkdir -p $d
  echo "== torch windows $n x$k"
  env GOBLIN_PROFILE=1 GOBLIN_PROFILE_OUT=$d GOBLIN_PROFILE_WAIT=8 GOBLIN_PROFILE_ACTIVE=5 GOBLIN_PROFILE_COMPARE=5 \
      GOBLIN_PROFILE_WINDOWS=$k PYTHONPATH=$HOOK timeout 300 "$@" > $W/tw_$n.log 2>&1
  echo "exit $?"; cp $d/hook.json $W/tw_${n}_hook.json
  [ -f $d/trace.json.gz ] && /tmp/gbin/goblin trace --summary $d/trace.json.gz --json > $W/tw_${n}_summary.json 2>&1
  [ -f $d/trace.json.gz ] && [ "$(stat -c %s $d/trace.json.gz)" -lt "${KEEP:-0}" ] && cp $d/trace.json.gz $REAL/tw_$n.json.gz
}
[ -f $DEV/carry.tar.xz ] && tar -xJf $DEV/carry.tar.xz -C $DEV  # goblin and its libraries, packed to fit the 64 MiB
{
nvidia-smi -L; python3 -c "import torch;print(torch.__version__)"
mkdir -p /tmp/gbin; printf '#!/bin/sh\nLD_LIBRARY_PATH=%s exec %s "$@"\n' $PWD/$DEV/carry/lib $PWD/$DEV/carry/goblin > /tmp/gbin/goblin; chmod +x /tmp/gbin/goblin
bash $DEV/device.sh obsbuild; el
sed 's/^max_steps: 60/max_steps: 900/' $DEV/tracer_checks/hf_bf16.yaml > /tmp/hf900.yaml
HF="python3 workloads/hf_trainer/train_hf.py /tmp/hf900.yaml"
# 13 configurations x 5 windows, alternating (window i runs variant i mod 13)
V="off=off;all_ops=all|launch|shapes;all=all|launch|0;cb=$K,cb|launch|0;cb_ops=$K,cb|launch|shapes"
V="$V;noapi=$K|launch|0;kernel=kernel|launch|0;none=none|launch|0;rt=$K,runtime|launch|0"
V="$V;nosync=kernel,memcpy,memset,marker,overhead,api|launch|0;noovh=kernel,memcpy,memset,sync,marker,api|launch|0"
V="$V;serial=kernel_serial,memcpy,memset,sync,marker,overhead,api|launch|0;apiall=all|all|0"
win hfv 65 "$V" $HF; el
TC="python3 workloads/train.py workloads/configs/tuned_compile.yaml --warmup 10 --result /tmp/r.json --steps"
KEEP=15000000 win tunedv 20 "off=off;all_ops=all|launch|shapes;cb_ops=$K,cb|launch|shapes;all=all|launch|0" $TC 300; el
win basev 15 "off=off;all_ops=all|launch|shapes;cb_ops=$K,cb|launch|shapes" python3 workloads/train.py workloads/configs/base.yaml --warmup 10 --result /tmp/rb.json --steps 220; el
sed 's/^max_steps: 60/max_steps: 90/' $DEV/tracer_checks/hf_bf16.yaml > /tmp/hf90.yaml
tw hf 5 python3 workloads/hf_trainer/train_hf.py /tmp/hf90.yaml; el
KEEP=15000000 tw tuned 5 $TC 90; el
COST_SPECS="all $K,cb $K none" COST_N=5000 bash $DEV/device.sh cost; el
} 2>&1 | tee $REAL/device_stdout.txt
tar -czf $REAL/results.tgz -C $W . 2>/dev/null; true
