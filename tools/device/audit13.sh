#!/usr/bin/env bash
# Live acceptance of issue 13 on one H100 (bench/results/h100_audit13/ once recorded):
#   base   goblin audit workloads/configs/base.yaml --rounds 3      (total >= 9x, each round's range holds)
#   hf     the HF Trainer workload audited through --script          (train_hf.py has no goblin code;
#          HF_ROUNDS=2 for a second, compiled round)
#   tuned  goblin audit workloads/configs/tuned_compile.yaml         (must get no rule)
# Prerequisite on the dev machine: a Release build, then `scripts/device_pack build` (goblin + its
# libraries in .carry/); the device tool carries [".carry"] with the repository tree.
#
# The device tool allows 10 minutes per command, the three parts together take ~20-25, so:
#   bash tools/device/audit13.sh start            all parts in the background, one after another
#   bash tools/device/audit13.sh wait [SECONDS]   wait (default 560 s) and copy what exists to $OUT
#   bash tools/device/audit13.sh status           what is running / done
#   bash tools/device/audit13.sh run PART...      parts in the foreground (each under ~10 min: base, hf, tuned)
# `start` + `wait` only works while the device machine stays held between calls: it is released
# after ~30 s without a call, and a background audit dies with it (one HF round-2 attempt was lost
# that way). Prefer `run PART` in the foreground, one part per call, each under 10 minutes.
# Each part is independent (its failure is logged, the next part runs), has its own timeout, and
# keeps its logs. Everything lands in $W (/tmp/audit13); `wait` packs the small files into
# $OUT/audit13_results.tgz (reports, trajectories, patches, run.json/metrics.json, logs, the
# history database) and copies the summaries, so the lead commits them under bench/results/.
set -u
cd "$(dirname "$0")/../.."
W=${W:-/tmp/audit13}
OUT=${OUT:-/tmp/audit13_out}
mkdir -p "$W" "$OUT"
export PYTHONUNBUFFERED=1 GOBLIN_CACHE_DIR=$W/cache GOBLIN_HISTORY=$W/history.sqlite
export GOBLIN_HOOK_DIR=$PWD/workloads/goblin_hook
G=$PWD/.carry/goblin
export LD_LIBRARY_PATH=$PWD/.carry/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
# Traces with CPU ops and shapes (the speedup models read FLOPs, bmm and optimizer launches).
TRACER=${TRACER:-torch}

log() { echo "== $(date -u +%T) $*" | tee -a "$W/audit13.log"; }

part_check() {
  log "check"
  {
    nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv
    python3 -c "import torch,sys;print('torch',torch.__version__,torch.version.cuda,torch.cuda.is_available(),sys.version.split()[0])"
    python3 -c "import transformers;print('transformers',transformers.__version__)"
    "$G" --version
    ls -la .carry | head
  } > "$W/check.log" 2>&1
  cat "$W/check.log"
}

# One audit, its own output folder, stdout JSON and stderr progress kept.
audit() {
  local name=$1 limit=$2; shift 2
  log "audit $name: goblin audit $* (timeout ${limit}s)"
  rm -rf "$W/$name"
  # goblin's own options first: with --script, everything after `--` is the script's.
  timeout "$limit" "$G" audit -o "$W/$name" --tracer "$TRACER" --json "$@" > "$W/$name.json" 2> "$W/$name.stderr.log"
  local rc=$?
  echo "rc=$rc" >> "$W/$name.stderr.log"
  log "audit $name exit $rc"
  summary "$W/$name.json" | tee -a "$W/audit13.log"
}

summary() {
  python3 - "$1" <<'PY'
import json, sys
try:
    d = json.load(open(sys.argv[1]))
except Exception as e:
    print("  unreadable:", e); sys.exit(0)
r = d.get("result") or {}
if not d.get("ok"):
    print("  ok=false:", str(d.get("error"))[:400])
print("  round 1:", r.get("summary_line"))
for rd in r.get("rounds", []):
    m = rd.get("measured") or {}
    p = rd.get("predicted") or {}
    print("  round %s rules=%s predicted=[%s, %s] measured=%s [%s, %s] held=%s accepted=%s %s" % (
        rd.get("round"), rd.get("rules"), p.get("low"), p.get("high"), m.get("speedup"), m.get("ci_low"),
        m.get("ci_high"), rd.get("prediction_held"), rd.get("accepted"), rd.get("reverted") or rd.get("stopped") or ""))
print("  total:", r.get("total_speedup"), "| stop:", r.get("rounds_stop_reason"))
PY
}

part_base() {
  audit base "${BASE_TIMEOUT:-900}" workloads/configs/base.yaml --rounds "${BASE_ROUNDS:-3}" --repeats "${REPEATS:-3}" --steps 15
}
part_hf() {
  # One round by default: a second would torch.compile a 0.5B model in each of its runs (minutes).
  audit hf "${HF_TIMEOUT:-720}" workloads/hf_trainer/configs/hf_base.yaml --rounds "${HF_ROUNDS:-1}" --repeats "${REPEATS:-3}" \
    --steps "${HF_STEPS:-10}" --script workloads/hf_trainer/train_hf.py -- '{config}'
}
part_tuned() {
  audit tuned "${TUNED_TIMEOUT:-420}" workloads/configs/tuned_compile.yaml --rounds 1 --repeats "${REPEATS:-3}" --steps 15
}

# Why round 2 of base.yaml is bimodal (runs at 41.7 or 49.3 ms/step, bench/results/h100_audit_rounds):
# the round-2 config against itself with twice the DataLoader workers, per-run step times kept.
part_probe() {
  local cfg=tests/fixtures/h100_audit_rounds/base/patched_final.yaml
  sed -e 's/^dataloader_num_workers: .*/dataloader_num_workers: 8/' "$cfg" > "$W/probe_w8.yaml"
  echo "dataloader_prefetch_factor: 4" >> "$W/probe_w8.yaml"
  log "probe: goblin bench round-2 config --against workers 8 (repeats ${PROBE_REPEATS:-4})"
  rm -rf "$W/probe"
  timeout "${PROBE_TIMEOUT:-540}" "$G" bench "$cfg" --against "$W/probe_w8.yaml" --repeats "${PROBE_REPEATS:-4}" --steps 30 \
    --no-cache --work-dir "$W/probe" --json > "$W/probe.json" 2> "$W/probe.stderr.log"
  log "probe exit $?"
  grep -E "^\[bench" "$W/probe.stderr.log" | grep -v running | tee -a "$W/audit13.log"
}

pack() {
  # Small files only (traces of the profiled runs stay out unless under 3 MB).
  (cd "$W" && find . -type f \( -name '*.json' -o -name '*.md' -o -name '*.html' -o -name '*.log' -o -name '*.yaml' \
      -o -name '*.csv' -o -name '*.sqlite' -o -name '*.py' \) -size -3M -print0 |
    tar --null -czf "$OUT/audit13_results.tgz" -T -)
  cp "$W/audit13.log" "$OUT/" 2>/dev/null
  for p in base hf tuned; do
    [ -f "$W/$p/report.md" ] && cp "$W/$p/report.md" "$OUT/report_$p.md"
  done
  ls -la "$OUT"
}

run_parts() {
  for p in "$@"; do
    case $p in
      check|base|hf|tuned|probe) "part_$p" ;;
      *) log "unknown part $p" ;;
    esac
  done
}

case ${1:-status} in
  start)
    if [ -f "$W/pid" ] && kill -0 "$(cat "$W/pid")" 2>/dev/null; then echo "already running: $(cat "$W/pid")"; exit 0; fi
    rm -f "$W/done"
    nohup bash -c "$(declare -f log audit summary part_check part_base part_hf part_tuned part_probe run_parts); \
      G='$G' W='$W' TRACER='$TRACER' REPEATS='${REPEATS:-3}' HF_ROUNDS='${HF_ROUNDS:-1}' HF_TIMEOUT='${HF_TIMEOUT:-720}' HF_STEPS='${HF_STEPS:-10}' \
      run_parts ${PARTS:-check base hf tuned}; touch '$W/done'" \
      > "$W/background.log" 2>&1 &
    echo $! > "$W/pid"
    echo "started $(cat "$W/pid"); logs in $W"
    ;;
  wait)
    limit=${2:-560}; t0=$(date +%s)
    while [ ! -f "$W/done" ] && [ $(( $(date +%s) - t0 )) -lt "$limit" ]; do sleep 10; done
    [ -f "$W/done" ] && echo "all parts done" || echo "still running after ${limit}s (wait again)"
    tail -30 "$W/audit13.log"
    pack
    ;;
  status)
    [ -f "$W/done" ] && echo done || { [ -f "$W/pid" ] && kill -0 "$(cat "$W/pid")" 2>/dev/null && echo running || echo idle; }
    tail -20 "$W/audit13.log" 2>/dev/null
    ;;
  run)
    shift; run_parts "$@"; pack ;;
  *)
    echo "usage: $0 start | wait [SECONDS] | status | run PART..."; exit 2 ;;
esac
