#!/usr/bin/env bash
# Live runs on the device machine with the carried goblin binary (.carry/goblin + .carry/lib).
# Usage: bash workloads/device_live.sh PART   (PART: base | tuned | audit_base | audit_tuned_compile | specs | graphs | graphs_bench)
# Everything lands in /tmp/runs and is packed into $OUT/runs_PART.tgz; short JSON summaries beside.
set -u
PART=${1:-base}
OUT=${OUT:-/tmp/goblin_out}; mkdir -p "$OUT"
export PYTHONUNBUFFERED=1 LD_LIBRARY_PATH=$PWD/.carry/lib GOBLIN_CACHE_DIR=/tmp/gcache
G=$PWD/.carry/goblin
C=workloads/configs
R=/tmp/runs; mkdir -p $R
LOG=$OUT/live_$PART.log
step() { echo "== $(date +%T) $*" | tee -a "$LOG"; }
case $PART in
base)
  step "profile base"
  $G profile $C/base.yaml --steps 5 --warmup 5 -o $R/profile_base --json > $R/profile_base.json 2>>"$LOG"; echo "rc=$?" >>"$LOG"
  step "patch base (all rules, profile metrics as evidence)"
  $G patch $C/base.yaml --rules all --metrics $R/profile_base/metrics.json -o $R/patched_base.yaml --json > $R/patch_base.json 2>>"$LOG"; echo "rc=$?" >>"$LOG"
  [ -s $R/patched_base.yaml ] || cp $C/tuned_compile.yaml $R/patched_base.yaml.MISSING
  step "bench base --against patched (interleaved)"
  $G bench $C/base.yaml --against $R/patched_base.yaml --repeats 5 --steps 20 --warmup 5 --timeout 300 --json --work-dir $R/bench_base_vs_patched > $R/bench_base_vs_patched.json 2>>"$LOG"; echo "rc=$?" >>"$LOG"
  step "bench base --against tuned (interleaved, no compile)"
  $G bench $C/base.yaml --against $C/tuned.yaml --repeats 3 --steps 20 --warmup 5 --timeout 300 --json --work-dir $R/bench_base_vs_tuned > $R/bench_base_vs_tuned.json 2>>"$LOG"; echo "rc=$?" >>"$LOG"
  ;;
tuned)
  step "profile tuned_compile"
  $G profile $C/tuned_compile.yaml --steps 5 --warmup 8 -o $R/profile_tuned_compile --json > $R/profile_tuned_compile.json 2>>"$LOG"; echo "rc=$?" >>"$LOG"
  step "patch tuned_compile"
  $G patch $C/tuned_compile.yaml --rules all --metrics $R/profile_tuned_compile/metrics.json --json > $R/patch_tuned_compile.json 2>>"$LOG"; echo "rc=$?" >>"$LOG"
  step "bench tuned_compile --against tuned_compile (A/A)"
  $G bench $C/tuned_compile.yaml --against $C/tuned_compile.yaml --repeats 4 --steps 20 --warmup 8 --timeout 300 --json --work-dir $R/bench_tuned_aa > $R/bench_tuned_aa.json 2>>"$LOG"; echo "rc=$?" >>"$LOG"
  ;;
audit_base|audit_tuned_compile)
  c=${PART#audit_}
  step "audit $c (live; before and after interleaved inside the audit)"
  $G audit $C/$c.yaml -o $R/audit_$c --repeats ${REPEATS:-4} --json > $R/audit_$c.json 2>>"$LOG"; echo "rc=$?" >>"$LOG"
  if [ "${POST_BENCH:-0}" = 1 ]; then  # a second, standalone interleaved bench + compare
    P=$R/audit_$c/patched_$c.yaml; [ -s $P ] || P=$C/$c.yaml
    step "bench $c --against $P (interleaved) + compare"
    $G bench $C/$c.yaml --against $P --repeats ${REPEATS:-4} --steps 20 --warmup 8 --timeout 300 --json --no-cache --work-dir $R/bench_$c --emit-sides $R/sides_$c > $R/bench_${c}_vs_patched.json 2>>"$LOG"; echo "rc=$?" >>"$LOG"
    $G compare $R/sides_$c/before.json $R/sides_$c/after.json --patch $R/audit_$c/patch.json --json > $R/compare_interleaved_$c.json 2>>"$LOG"; echo "rc=$?" >>"$LOG"
  fi
  ;;
graphs)
  # The two-trace overlap workflow on a real pair: graph-off (torch.compile default) and graph-on
  # (reduce-overhead: CUDA graphs) profiles of the same workload, then goblin overlap on them.
  for c in tuned_compile tuned_compile_graphs; do
    step "profile $c"
    $G profile $C/$c.yaml --steps 5 --warmup 10 --timeout 400 -o $R/profile_$c --json > $R/profile_$c.json 2>>"$LOG"; echo "rc=$?" >>"$LOG"
  done
  step "overlap (mapping = graph-off, formal = graph-on)"
  $G overlap $R/profile_tuned_compile/trace.json.gz $R/profile_tuned_compile_graphs/trace.json.gz --json > $R/overlap_graphs.json 2>>"$LOG"; echo "rc=$?" >>"$LOG"
  ;;
graphs_bench)
  # Unprofiled A/B: torch.compile default vs reduce-overhead (CUDA graphs), interleaved.
  step "bench tuned_compile --against tuned_compile_graphs (interleaved)"
  $G bench $C/tuned_compile.yaml --against $C/tuned_compile_graphs.yaml --repeats ${REPEATS:-3} --steps 20 --warmup 10 --timeout 300 --json --no-cache --work-dir $R/bench_graphs > $R/bench_compile_vs_graphs.json 2>>"$LOG"; echo "rc=$?" >>"$LOG"
  ;;
specs)
  step "specs --measure (copy bandwidth + GEMM microbenchmarks through goblin)"
  $G specs --measure --script tools/measure_ceilings.py --out $R/specs_measured.json --json > $R/specs_measure.json 2>>"$LOG"; echo "rc=$?" >>"$LOG"
  ;;
esac
step "done"
# Keep traces and logs; drop nothing else. nvidia-smi / run dirs are small.
tar czf $OUT/runs_$PART.tgz -C /tmp runs
python3 - "$R" <<'PY' | tee -a "$LOG"
import json, sys, glob, os
for f in sorted(glob.glob(sys.argv[1] + "/*.json")):
    try:
        d = json.load(open(f))
    except Exception as e:
        print(os.path.basename(f), "unreadable", e); continue
    r = d.get("result") or {}
    line = [os.path.basename(f), "ok=%s" % d.get("ok")]
    if not d.get("ok"): line.append(str(d.get("error"))[:300])
    if "comparison" in r: line.append("speedup=%s" % r["comparison"]["speedup"])
    if "a" in r and isinstance(r["a"], dict) and "step_time_s" in r["a"]: line.append("a=%s" % r["a"]["step_time_s"])
    if "b" in r and isinstance(r["b"], dict) and "step_time_s" in r["b"]: line.append("b=%s" % r["b"]["step_time_s"])
    if "profiled" in r: line.append("profiled=%s" % r["profiled"].get("step_time_s"))
    if "expected_speedup_low" in r: line.append("predicted=[%s, %s] rules=%s" % (r.get("expected_speedup_low"), r.get("expected_speedup_high"), [x["rule_id"] for x in r.get("rationale", [])]))
    print(" ".join(line))
PY
