#!/bin/bash
# The acceptance loop on the H100, driven by goblin itself: init, then per version
# bench + profile + record + plan; status at the end. Workspaces come back as tarballs.
D=$(cd "$(dirname "$0")" && pwd)
export LD_LIBRARY_PATH=$D/carry/lib GOBLIN_TOOLS_DIR=$D/tools PYTHONUNBUFFERED=1
G=$D/carry/goblin
K=$D/examples/kernel
LOG=$OUT/log.txt
exec > >(tee -a $LOG) 2>&1
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv
python3 -c "import torch, triton; print('torch', torch.__version__, 'triton', triton.__version__)"
ncu --version | tail -1

step() {  # WS FILE SUMMARY HYPOTHESIS TAGS [profile options]
  local ws=$1 file=$2 sum=$3 hyp=$4 tags=$5; shift 5
  echo; echo "=================== $ws: $sum"
  cp $file $ws/kernel.py
  echo "\$ goblin kernel bench $ws"; $G kernel bench $ws --rep-ms 1000 || return 1
  echo "\$ goblin kernel profile $ws $*"; $G kernel profile $ws "$@" || echo "PROFILE FAILED rc=$?"
  echo "\$ goblin kernel record $ws --summary ..."; $G kernel record $ws --summary "$sum" --hypothesis "$hyp" --tags "$tags" || return 1
  echo "\$ goblin kernel plan $ws"; $G kernel plan $ws > /dev/null && tail -25 $ws/plans/$(ls -t $ws/plans | head -1)
}

S=/tmp/kernel_opt_softmax
echo "\$ goblin kernel init softmax ..."
$G kernel init softmax --kernel $K/softmax/v0.py --platform H100 --framework triton --shape M=32768,N=8192 --dtype bf16 --rtol 1e-2 \
  --notes "row softmax over the last dim, bf16 in/out, fp32 math" || exit 1
step $S $K/softmax/v0.py "naive: three passes over each row in 128-element chunks, 1 warp" "baseline" "" --prompt
step $S $K/softmax/v1.py "single pass, whole row in registers, 8 warps" "reading each element once instead of three times removes 2/3 of the DRAM/L2 traffic" "single_pass,occupancy_warps"
step $S $K/softmax/v2.py "16 warps (wider per-thread vectors), exp2, reciprocal multiply, evict_first hints" "more bytes in flight per SM and streaming hints close the last gap to the copy ceiling" "vectorized_coalesced,occupancy_warps,cache_hints"
step $S $K/softmax/v3.py "persistent grid (4 programs per SM) looping over rows, pipelined loads (num_stages 2)" "no tail wave and the next row's load overlapping this row's math" "rows_per_program"
$G kernel status $S
$G kernel mask 3 $S && $G kernel status $S > $S/status_with_v3_masked.txt; cat $S/status_with_v3_masked.txt
$G kernel unmask 3 $S
$G kernel status $S --json > $S/status.json; $G kernel status $S > $S/status.txt

M=/tmp/kernel_opt_matmul
echo "\$ goblin kernel init matmul ..."
$G kernel init matmul --kernel $K/matmul/v0.py --platform H100 --framework triton --shape M=8192,N=8192,K=8192 --dtype bf16 --rtol 1e-2 \
  --notes "C = A @ B, bf16 in/out, fp32 accumulate; baseline() = torch.matmul (cuBLAS) timed in the same run" || exit 1
step $M $K/matmul/v0.py "naive: 32x32x32 tiles, one stage, row-major program order" "baseline" "" --prompt
step $M $K/matmul/v1.py "autotuned 128x128/128x256/256x128 tiles, BK 64, 3-4 stages" "large tiles raise reuse per loaded byte; pipelining hides load latency" "tiling,pipelining"
step $M $K/matmul/v2.py "grouped program ordering (GROUP_M 8) + 4-5 stage autotuned configs" "grouped order keeps A/B tiles in L2; deeper pipelines keep tensor cores fed" "grouped_ordering,pipelining"
step $M $K/matmul/v3.py "Hopper TMA tile loads/stores (device tensor descriptors) on v2's grouped ordering" "TMA frees the warps from address math and issues whole-tile copies, lifting tensor-pipe utilisation" "tma_wgmma"
$G kernel status $M --json > $M/status.json; $G kernel status $M | tee $M/status.txt

for w in $S $M; do git -C $w log --oneline > $w/git_log.txt; cat $w/git_log.txt; done
cd /tmp && tar czf $OUT/workspaces.tgz --exclude=.git --exclude=__pycache__ kernel_opt_softmax kernel_opt_matmul
ls -la $OUT
