#!/usr/bin/env bash
# First device call: environment check + the reference workload on base/tuned/tuned_compile, the
# profiler hook on base, and an nvidia-smi telemetry sample. Writes under $OUT (max 8 files).
set -u
OUT=${OUT:-/tmp/goblin_out}; mkdir -p "$OUT"
export PYTHONUNBUFFERED=1
LOG=$OUT/device_check.log
{
echo "== env"; uname -a; which cmake g++ ninja nvidia-smi python3; python3 -c 'import torch,sys;print(torch.__version__, torch.version.cuda, torch.cuda.is_available(), torch.cuda.get_device_name(0), sys.version)'
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv; nproc; free -g | head -2
pkg-config --exists simdjson yaml-cpp fmt sqlite3 && echo "dev libs present" || echo "dev libs missing"
ls /usr/include/CLI /usr/include/nlohmann 2>&1 | head -3
if [ -x .carry/goblin ]; then LD_LIBRARY_PATH=.carry/lib .carry/goblin --version; fi
} > "$LOG" 2>&1
nvidia-smi --query-gpu=timestamp,index,name,utilization.gpu,utilization.memory,memory.used,memory.total,power.draw,power.limit,temperature.gpu,clocks.sm,clocks.mem --format=csv -lms 200 > "$OUT/telemetry_base.csv" 2>>"$LOG" &
SMI=$!
for c in base tuned; do
  echo "== $c" >> "$LOG"
  /usr/bin/time -v timeout 200 python3 workloads/train.py workloads/configs/$c.yaml --steps 20 --warmup 5 --result "$OUT/result_$c.json" >> "$LOG" 2>&1 || echo "rc=$? for $c" >> "$LOG"
  [ $c = base ] && { kill $SMI 2>/dev/null; wait $SMI 2>/dev/null; }
done
echo "== profiled base (hook)" >> "$LOG"
mkdir -p /tmp/prof && GOBLIN_PROFILE=1 GOBLIN_PROFILE_OUT=/tmp/prof GOBLIN_PROFILE_WAIT=5 GOBLIN_PROFILE_ACTIVE=5 PYTHONPATH=workloads/goblin_hook \
  timeout 200 python3 workloads/train.py workloads/configs/base.yaml --steps 12 --warmup 5 >> "$LOG" 2>&1 || echo "rc=$?" >> "$LOG"
cat /tmp/prof/hook.json >> "$LOG"; cp /tmp/prof/trace.json.gz "$OUT/trace_base_profiled.json.gz" 2>>"$LOG"
echo "== tuned_compile" >> "$LOG"
/usr/bin/time -v timeout 240 python3 workloads/train.py workloads/configs/tuned_compile.yaml --steps 20 --warmup 8 --result "$OUT/result_tuned_compile.json" >> "$LOG" 2>&1 || echo "rc=$? for compile" >> "$LOG"
grep -h '"tokens_per_sec"' "$LOG"; grep -E "Elapsed|rc=|Error|error" "$LOG" | head -20
