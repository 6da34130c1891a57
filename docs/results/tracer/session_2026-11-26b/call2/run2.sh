#!/usr/bin/env bash
# Issue 30, call 2: goblin's C++ operator observer after the NDEBUG and correlation fixes (docs/results/tracer).
set -u
REAL=$OUT; export OUT=/tmp/o2; mkdir -p $OUT/w
export DEV=.dev/tracer30b TORCH_EXTENSIONS_DIR=/tmp/goblin_ext PYTHONUNBUFFERED=1 WIN_TIMEOUT=120
D="bash $DEV/device.sh"
sed 's/^max_steps: 60/max_steps: 80/' $DEV/tracer_checks/hf_bf16.yaml > /tmp/hf80.yaml
HF="python3 workloads/hf_trainer/train_hf.py /tmp/hf80.yaml"
T0=$(date +%s); el() { echo "[t=$(( $(date +%s) - T0 )) s]"; }
{
$D obsbuild; el
$D windows hf 5 $HF; el
WIN_KEEP_BYTES=12000000 $D windows tuned 5 python3 workloads/train.py workloads/configs/tuned_compile.yaml --steps 70 --warmup 10 --result /tmp/r_t.json; el
$D windows base 5 python3 workloads/train.py workloads/configs/base.yaml --steps 70 --warmup 10 --result /tmp/r_b.json; el
GOBLIN_TRACER_OPS=names $D windows hf_names 5 $HF; el
GOBLIN_TRACER_MODULES=0 $D windows hf_nomod 5 $HF; el
GOBLIN_TRACER_OPS=0 $D windows hf_ops0 5 $HF; el
COST_SPECS="all all|names" COST_N=5000 $D cost; el
rm -rf /tmp/ts_small; GOBLIN_HOOK_DIR=$PWD/$DEV/goblin_hook /tmp/gbin/goblin trace -o /tmp/ts_small --timeout 60 --json -- python3 $DEV/tracer_checks/small_train.py 8 > $OUT/w/tracesteps_small.json 2>&1
python3 -c "import json;r=json.load(open('$OUT/w/tracesteps_small.json'))['result'];t=(r.get('traces') or [{}])[0];print('tracesteps small:',r.get('exit_code'),{k:t.get(k) for k in ('kernels','complete_steps','cpu_ops','kernel_time_with_op_pct','dropped_records')})"; el
} 2>&1 | tee $REAL/device_stdout.txt
tar -czf "$REAL/results.tgz" -C "$OUT/w" . 2>/dev/null
cp $OUT/win_tuned.json.gz $REAL/ 2>/dev/null; true
