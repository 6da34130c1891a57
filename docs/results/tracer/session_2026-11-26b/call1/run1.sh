#!/usr/bin/env bash
# Issue 30, call 1: goblin's C++ operator observer on the H100 (docs/results/tracer, session_2026-11-26b).
# (As it ran: the observer was built without -DNDEBUG then; see README § second session.)
set -u
export DEV=.dev/tracer30b TORCH_EXTENSIONS_DIR=/tmp/goblin_ext PYTHONUNBUFFERED=1 WIN_TIMEOUT=150
D="bash $DEV/device.sh"
sed 's/^max_steps: 60/max_steps: 80/' $DEV/tracer_checks/hf_bf16.yaml > /tmp/hf80.yaml
T0=$(date +%s); el() { echo "[t=$(( $(date +%s) - T0 )) s]"; }
{
$D check obsbuild; el
WIN_KEEP_BYTES=12000000 $D windows hf 5 python3 workloads/hf_trainer/train_hf.py /tmp/hf80.yaml; el
$D torchwin hf python3 workloads/hf_trainer/train_hf.py /tmp/hf80.yaml; el
$D windows tuned 5 python3 workloads/train.py workloads/configs/tuned_compile.yaml --steps 70 --warmup 10 --result /tmp/r_t.json; el
$D torchwin tuned python3 workloads/train.py workloads/configs/tuned_compile.yaml --steps 10 --warmup 10 --result /tmp/r_t2.json; el
$D windows base 5 python3 workloads/train.py workloads/configs/base.yaml --steps 70 --warmup 10 --result /tmp/r_b.json; el
$D torchwin base python3 workloads/train.py workloads/configs/base.yaml --steps 10 --warmup 10 --result /tmp/r_b2.json; el
COST_SPECS="all all|names" COST_N=5000 $D cost; el
GOBLIN_TRACER_OBSERVER=nvtx COST_SPECS="all" COST_N=5000 $D cost; el
rm -rf /tmp/ts_small; GOBLIN_HOOK_DIR=$PWD/$DEV/goblin_hook /tmp/gbin/goblin trace -o /tmp/ts_small --timeout 60 --json -- python3 $DEV/tracer_checks/small_train.py 8 > $OUT/w/tracesteps_small.json 2>&1
python3 -c "import json;r=json.load(open('$OUT/w/tracesteps_small.json'))['result'];t=(r.get('traces') or [{}])[0];print('tracesteps small:',r.get('exit_code'),{k:t.get(k) for k in ('kernels','complete_steps','cpu_ops','kernel_time_with_op_pct','dropped_records')})"; el
} 2>&1 | tee $OUT/device_stdout.txt
tar -czf "$OUT/results.tgz" -C "$OUT/w" . 2>/dev/null
