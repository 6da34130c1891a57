#!/bin/bash
# `goblin kernel suite` over examples/kernel (matmul v0-v3, softmax v0-v3) on the H100
# (docs/results/kernel_suite/README.md). Run from the bundle make_bundle.sh packs; everything
# comes back as $OUT/kernel_suite.tgz (the raw harness results, suite.json, suite.md, console).
B=$(cd "$(dirname "$0")" && pwd)
export LD_LIBRARY_PATH=$B/lib GOBLIN_TOOLS_DIR=$B/tools PYTHONUNBUFFERED=1
R=/tmp/kernel_suite
rm -rf $R && mkdir -p $R
exec > >(tee -a $R/console.txt) 2>&1
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem,driver_version --format=csv
python3 -c "import torch, triton; print('torch', torch.__version__, 'triton', triton.__version__)"
PLAT=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | grep -q H200 && echo H200 || echo H100)
# Short budgets (the session's device time is small): 100 ms of timing per kernel and reference.
echo "\$ goblin kernel suite examples --platform $PLAT -o suite --rep-ms 100 --warmup-ms 25 --timeout 150"
time $B/goblin kernel suite $B/examples --platform $PLAT -o $R/suite --rep-ms ${REP:-100} --warmup-ms 25 \
  --timeout ${PER_FILE:-150}
echo "exit $?"
[ -n "$OUT" ] && tar czf $OUT/kernel_suite.tgz -C $R .
