#!/bin/bash
# The honest-measurement acceptance on the H100 (bench/results/kernel_integrity/README.md).
#   run_h100.sh smoke    new harness on softmax v1 and two cheats, short budgets
#   run_h100.sh cheats   every cheat: kernel_harness 1 (before) and goblin kernel bench/record (after)
#   run_h100.sh compare  the honest kernels of bench/results/kernel_opt/ under both harnesses,
#                        alternating, same budgets; profile's work-done check on three kernels
# Run from the bundle that make_bundle.sh packs (goblin, its libraries, both harnesses, cheats).
B=$(cd "$(dirname "$0")" && pwd)
MODE=${1:-smoke}
export LD_LIBRARY_PATH=$B/lib GOBLIN_TOOLS_DIR=$B/tools PYTHONUNBUFFERED=1
G=$B/goblin
NEW=$B/tools/kernel_harness.py
OLD=$B/old_harness.py
R=/tmp/kernel_integrity/$MODE  # everything comes back as $OUT/$MODE.tgz (8 files at most come back)
rm -rf $R && mkdir -p $R
exec > >(tee -a $R/console.txt) 2>&1
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem,driver_version --format=csv
python3 -c "import torch, triton; print('torch', torch.__version__, 'triton', triton.__version__)"
# The spec database's id of this GPU (the physical limits are the platform's).
PLAT=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | grep -q H200 && echo H200 || echo H100)
SM='{"M": 32768, "N": 8192}'
MM='{"M": 8192, "N": 8192, "K": 8192}'

harness() {  # HARNESS FILE SHAPE OUTNAME REP_MS: a raw bench JSON, one summary line
  local h=$1 f=$2 shape=$3 name=$4 rep=$5
  local t0=$(date +%s.%N)
  timeout ${HARNESS_TIMEOUT:-240} python3 $h bench --kernel $f --shape "$shape" --rep-ms $rep --warmup-ms 50 --out $R/$name.json \
    2> $R/$name.stderr.txt
  local rc=$? t1=$(date +%s.%N)
  python3 - $R/$name.json $rc "$t0" "$t1" "$name" << 'PY'
import json, statistics, sys
p, rc, t0, t1, name = sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4]), sys.argv[5]
try:
    d = json.load(open(p))
except Exception as e:
    print(f"{name}: rc={rc} no JSON ({e})"); sys.exit()
ms = d.get("samples_ms") or []
med = statistics.median(ms) if ms else None
b = d.get("bytes_moved") or 2 * 32768 * 8192 * 2
integ = d.get("integrity", {})
print(f"{name}: rc={rc} wall={t1 - t0:.1f}s correct={d['correctness'].get('passed')} "
      f"msg={d['correctness'].get('message', '')!r} median_ms={med} n={len(ms)} "
      + (f"GB/s(1 GiB softmax)={b / (med * 1e-3) / 1e9:.1f} " if med else "")
      + f"integrity={integ.get('passed')} problems={[x['check'] for x in integ.get('problems', [])]} "
      + f"held_out={d.get('held_out', {}).get('passed')} sets={integ.get('input_sets')} "
      + f"checked={integ.get('outputs_checked')}")
PY
}

goblin_flow() {  # NAME FILE: init, bench, record (the refusal is the expected outcome for a cheat)
  local name=$1 f=$2 ws=/tmp/ws_$1
  rm -rf $ws
  $G kernel init $name --kernel $f --platform $PLAT --shape M=32768,N=8192 --dtype bf16 --workspace $ws > /dev/null || {
    echo "INIT FAILED $name"; return; }
  cp $B/cheats/_softmax.py $ws/  # the cheats' shared honest kernel
  echo "\$ goblin kernel bench ($name)"; $G kernel bench $ws --rep-ms ${REP:-300}; echo "exit $?"
  cp $ws/profiles/v0/bench.json $R/goblin_$name.bench.json 2>/dev/null
  echo "\$ goblin kernel record ($name)"; $G kernel record $ws --summary "$name"; echo "exit $?"
  ls $ws/memory
}

case $MODE in
smoke)
  git -C $B/.. log --oneline -1 2>/dev/null; ls $B
  harness $NEW $B/examples/kernel/softmax/v1.py "$SM" new_softmax_v1 100
  harness $NEW $B/cheats/memo_pointer.py "$SM" new_memo_pointer 100
  harness $NEW $B/cheats/side_stream.py "$SM" new_side_stream 100
  tail -n 5 $R/*.stderr.txt
  ;;
cheats)
  for c in memo_pointer side_stream content_hash input_view bench_shape_only timer_patch harness_patch wrong_bytes nan_output; do
    echo; echo "================ $c"
    # kernel_harness 1 "before" (timer_patch hangs it: do_bench sizes its loop from the patched 1 us)
    case " ${OLD_CHEATS-all} " in *" $c "*|" all ") harness $OLD $B/cheats/$c.py "$SM" old_$c 300;; esac
    goblin_flow $c $B/cheats/$c.py
  done
  echo; echo "================ honest softmax v1 through goblin (accepted)"
  goblin_flow honest_v1 $B/examples/kernel/softmax/v1.py
  ;;
compare)
  for v in ${SOFTMAX-v0 v1 v2 v3}; do
    harness $OLD $B/examples/kernel/softmax/$v.py "$SM" old_softmax_$v 500
    harness $NEW $B/examples/kernel/softmax/$v.py "$SM" new_softmax_$v 500
  done
  for v in ${MATMUL-v0 v1 v2 v3}; do
    harness $OLD $B/examples/kernel/matmul/$v.py "$MM" old_matmul_$v 500
    harness $NEW $B/examples/kernel/matmul/$v.py "$MM" new_matmul_$v 500
  done
  ;;
profile)
  for k in softmax/v0 softmax/v1; do
    ws=/tmp/wsp_${k/\//_}; rm -rf $ws
    $G kernel init p --kernel $B/examples/kernel/$k.py --platform $PLAT --shape M=32768,N=8192 --workspace $ws > /dev/null
    echo "\$ goblin kernel profile ($k)"; $G kernel profile $ws; echo "exit $?"
    cp $ws/profiles/v0/diagnosis.json $R/diagnosis_${k/\//_}.json
  done
  ws=/tmp/wsp_wrong; rm -rf $ws
  $G kernel init p --kernel $B/cheats/wrong_bytes.py --platform $PLAT --shape M=32768,N=8192 --workspace $ws > /dev/null
  cp $B/cheats/_softmax.py $ws/
  echo "\$ goblin kernel profile (wrong_bytes)"; $G kernel profile $ws; echo "exit $?"
  cp $ws/profiles/v0/diagnosis.json $R/diagnosis_wrong_bytes.json
  ;;
esac
find $R -name '*.stderr.txt' -empty -delete
tar czf $OUT/$MODE.tgz -C $(dirname $R) $MODE
