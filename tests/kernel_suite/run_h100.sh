#!/bin/bash
# Issue 29 on the H100 (bench/results/kernel_suite/README.md § Run 3, bench/results/kernel_mcp/):
#   1. the compile caches filled for every kernel file at once (prewarm.py: nothing timed there);
#   2. RMSNorm optimized end to end through `goblin mcp` by the scripted client mcp_loop.py;
#   3. `goblin kernel suite` over examples/kernel: the six new problems first, then softmax and
#      matmul (naive and best of run 2), then their other versions while time is left.
# Every stage gets what is left of BUDGET seconds; results come back as $OUT/kernel_suite.tgz
# (raw harness results, suite.json/md of each group, console) and $OUT/kernel_mcp.tgz (the
# workspace with its git history, the JSON-RPC transcript, the loop's summary). A group cut off
# by the budget keeps the raw results of the files it finished: they are re-scored with --results.
B=$(cd "$(dirname "$(readlink -f "$0")")/../.." && pwd)
export LD_LIBRARY_PATH=$B/lib GOBLIN_TOOLS_DIR=$B/tools PYTHONUNBUFFERED=1
START=$(date +%s)
BUDGET=${BUDGET:-360}
left() { echo $((BUDGET - ($(date +%s) - START))); }
R=/tmp/kernel_suite M=/tmp/kernel_mcp
rm -rf $R $M && mkdir -p $R $M
save() { [ -n "$OUT" ] && tar czf "$OUT/kernel_suite.tgz" -C $R . && tar czf "$OUT/kernel_mcp.tgz" -C $M .; }
trap save EXIT
exec > >(tee -a $R/console.txt) 2>&1
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem,driver_version --format=csv
python3 -c "import torch, triton; print('torch', torch.__version__, 'triton', triton.__version__)"
PLAT=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | grep -q H200 && echo H200 || echo H100)
if ! command -v ncu >/dev/null; then
  n=$(ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
  [ -n "$n" ] && export PATH=$PATH:$(dirname "$n")
fi
echo "ncu: $(command -v ncu || echo none)"

K=$B/examples/kernel
suite() {  # suite NAME TASKS: one group of files into $R/NAME, raw results into $R/raw
  local t=$(($(left) - 10))
  [ $t -lt 20 ] && { echo "== $1 skipped: $t s left"; return; }
  echo "\$ goblin kernel suite examples/kernel --platform $PLAT --tasks $2 -o $1 --rep-ms ${REP:-100} --warmup-ms 25 --timeout 150   ($t s left)"
  time timeout $t $B/goblin kernel suite $B/examples/kernel --platform $PLAT --tasks "$2" -o $R/raw \
    --rep-ms ${REP:-100} --warmup-ms 25 --timeout 150
  echo "exit $?"
  mkdir -p $R/$1 && mv $R/raw/suite.json $R/raw/suite.md $R/$1/ 2>/dev/null
}
mcp() {
  local t=$(($(left) - ${1:-170})); [ $t -gt 140 ] && t=140
  echo "== MCP loop ($(left) s left, $t s for it)"
  time timeout $t python3 $B/tests/kernel_suite/mcp_loop.py --goblin $B/goblin --root $B \
    --out $M/out --plan $B/tests/kernel_suite/mcp_rmsnorm/plan.json --transcript $M/transcript.jsonl \
    --summary $M/summary.json
  echo "exit $?"
}
if [ "${STAGE:-all}" = all ]; then
  # The files of the first two suite groups (the MCP loop's v0 and v1 are among them).
  echo "== prewarm ($(left) s left)"
  time timeout 80 python3 $B/tests/kernel_suite/prewarm.py $B/tools $K/{rmsnorm,layernorm,silu_and_mul}/*.py \
    $K/{cross_entropy,rope,causal_attention}/*.py $K/softmax/v{0,1}.py $K/matmul/v{0,2}.py
  mcp 170
  suite new rmsnorm,layernorm,silu_and_mul,cross_entropy,rope,causal_attention
  suite old_best softmax/v0,softmax/v1,matmul/v0,matmul/v2
  suite old_rest softmax/v2,softmax/v3,matmul/v1,matmul/v3
else
  # STAGE=rest: what the first call's budget left out (bench/results/kernel_suite/README.md § Run 3):
  # the last new file, the MCP loop again with its record fix, then the best softmax and matmul.
  suite rest silu_and_mul/v1
  mcp 40
  suite old_best softmax/v1,matmul/v2
fi
echo "total $(( $(date +%s) - START )) s"
