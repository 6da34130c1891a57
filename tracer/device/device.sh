#!/usr/bin/env bash
# Device measurements for goblin's CUPTI tracer (bench/results/tracer/README.md).
# Run from the repository root of a checkout that has the tracer files and the packed goblin
# (goblin + libgoblin_cupti.so + libs) in $CARRY. Usage: device.sh PART [PART...]; results in $OUT.
#   check      what the tracer relies on (CUPTI library, driver, torch)
#   robust     crash / abort / SIGTERM after 2 s / no CUDA / DataLoader fork, plus the small fixture
#   graphs     goblin profile --tracer cupti on tuned_compile_graphs.yaml (graph attribution)
#   agree CFG  goblin profile --tracer torch and --tracer cupti on CFG; summaries of both traces
#   hf         goblin profile --tracer cupti --script on the HF Trainer workload
#   attach     what attaching CUPTI costs the host, GPU idle and busy (tracer_checks/attach_cost.py)
#   pauses     what is recorded after a pause and a resume (tracer_checks/pause_resume.py)
#   overhead CFG REPEATS STEPS WARMUP   interleaved untraced / cupti / torch.profiler runs (MODES="none cupti" to drop one)
#   variants CFG REPS STEPS WARMUP      interleaved runs of CFG's variants, each VARIANTS word MODE:NAME
#                                        (MODE none|torch|cupti[-KINDS], KINDS
#                                        GOBLIN_CUPTI_KINDS with '.' for ','; NAME base, wN = N DataLoader workers, light =
#                                        words_per_sample 300); every run's r.json (per-step times) kept
#   cost       host us per launch by recorded kinds, CUPTI options, the operator observer and
#              torch.profiler (tracer_checks/launch_cost.py; COST_SPECS "KINDS|TUNE ..." to choose)
#   ops CFG    goblin profile --tracer torch, then --tracer cupti OPS_REPS times (default 1), on CFG
#              (OPS_SCRIPT=path: a --script workload): kernel tables compared, op attribution,
#              tracer_step_cost_pct per cupti run (issue 30)
#   tracesteps goblin trace -- python3 SCRIPT with no GOBLIN_* set: steps and operators found
#   obsbuild   builds goblin's operator observer (workloads/goblin_hook/goblin_ops.cpp) against this torch
#   windows NAME K CMD...   CMD under the hook as goblin profile --tracer cupti runs it, K windows in
#              one process (GOBLIN_PROFILE_WINDOWS; WIN_WAIT warm-up steps before each, 5 compared,
#              5 recorded): tracer_step_cost_pct per window, trace summary and kernel table
#   torchwin NAME CMD...    the same window under torch.profiler, with its own 5 compared steps
#   ab CFG PROCS BLOCK PAIRS WAIT        the tracer's recording cost inside one process: PROCS processes under
#                                        the tracer, each alternating BLOCK-step blocks paused/recording for
#                                        PAIRS pairs after WAIT steps (workloads/goblin_hook/goblin_ab.py)
set -u
# DEV: a folder holding carry/ (goblin, libgoblin_cupti.so, lib/), goblin_hook/ and tracer_checks/
# (the device runs the lead's checkout, so this branch's hook and programs travel with it).
DEV=${DEV:-.dev/tracer}
CARRY=$DEV/carry
# goblin's own libraries only for goblin (the overhead runs start python3 without them).
GL=$PWD/$CARRY/lib
mkdir -p /tmp/gbin
printf '#!/bin/sh\nLD_LIBRARY_PATH=%s${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} exec %s "$@"\n' "$GL" "$PWD/$CARRY/goblin" > /tmp/gbin/goblin
chmod +x /tmp/gbin/goblin
G=/tmp/gbin/goblin
LIB=$PWD/$CARRY/libgoblin_cupti.so
HOOK=$PWD/$DEV/goblin_hook
export GOBLIN_HOOK_DIR=$HOOK
OUT=${OUT:-/tmp/out}
W=$OUT/w  # small outputs, archived into $OUT/results.tgz at the end; traces go to $OUT
mkdir -p "$W"
T0=$(date +%s)
left() { echo $(( ${BUDGET:-400} - ($(date +%s) - T0) )); }

part_check() {
  echo "== check"
  ls -la /usr/local/cuda/extras/CUPTI/lib64/libcupti* /usr/local/cuda/targets/x86_64-linux/lib/libcupti* 2>&1 | head
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  python3 -c "import torch,sys;print('torch',torch.__version__,torch.version.cuda,sys.version.split()[0])"
  ldd "$LIB" | grep -E "cupti|not found|libz|libstdc"
  "$G" --version
}

part_robust() {
  echo "== robust"
  local P=$DEV/tracer_checks
  mkdir -p "$W/robust"
  for c in ${ROBUST_ONLY:-crash abort no_cuda dataloader_fork}; do
    echo "-- $c"
    timeout 120 "$G" trace -o /tmp/tr_$c --json -- python3 $P/$c.py > "$W/robust/$c.json" 2>&1
    echo "goblin exit $?"; python3 -c "
import json,sys;d=json.load(open('$W/robust/$c.json'));r=d['result'];print(d['ok'],r.get('exit_code'),r.get('term_signal'),r.get('note'),[ (t['path'].split('/')[-1],t['kernels'],t.get('written_at'),t.get('dropped_records')) for t in r.get('traces',[])])" 2>&1 | tail -3
  done
  echo "-- SIGTERM 2 s after CUDA work started"
  rm -rf /tmp/tr_term; mkdir -p /tmp/tr_term
  "$G" trace -o /tmp/tr_term --timeout 100 --json -- python3 $P/forever.py > "$W/robust/sigterm.json" 2>&1 &
  local gp=$! pid=""
  for i in $(seq 1 600); do
    pid=$(awk '/^ready/{print $2}' /tmp/tr_term/stdout.log 2>/dev/null)
    [ -n "$pid" ] && break; sleep 0.1
  done
  sleep 2; echo "sending SIGTERM to $pid"; kill -TERM "$pid"; wait $gp
  echo "goblin exit $?"; python3 -c "
import json;d=json.load(open('$W/robust/sigterm.json'));r=d['result'];print(d['ok'],r.get('exit_code'),r.get('term_signal'),r.get('wall_s'),r.get('note'),[(t['path'].split('/')[-1],t['kernels'],t.get('written_at')) for t in r.get('traces',[])])"
  echo "-- goblin trace --timeout 6 (SIGTERM to the process group, SIGKILL 3 s later)"
  "$G" trace -o /tmp/tr_timeout --timeout 6 --json -- python3 $P/forever.py > "$W/robust/timeout.json" 2>&1
  echo "goblin exit $?"; python3 -c "
import json;d=json.load(open('$W/robust/timeout.json'));r=d['result'];print(d['ok'],r.get('exit_code'),r.get('term_signal'),r.get('wall_s'),r.get('note'),[(t['path'].split('/')[-1],t['kernels'],t.get('written_at')) for t in r.get('traces',[])])"
  [ -n "${ROBUST_ONLY:-}" ] && return
  echo "-- small fixture (NVTX steps from the hook, a CUDA graph)"
  PYTHONPATH=$HOOK GOBLIN_PROFILE=1 GOBLIN_TRACER=cupti GOBLIN_PROFILE_WAIT=2 GOBLIN_PROFILE_ACTIVE=4 \
    timeout 120 "$G" trace -o /tmp/tr_small --json -- python3 $P/small_train.py 8 > "$W/robust/small.json" 2>&1
  echo "goblin exit $?"
  cat /tmp/tr_small/stderr.log | tail -5
  f=$(ls -S /tmp/tr_small/goblin_cupti_*.json.gz | head -1); cp "$f" "$OUT/small_train_cupti.json.gz"
  "$G" trace --summary "$f"
  "$G" metrics "$f" 2>&1 | head -30
  "$G" perfetto-fix "$f" -o /tmp/tr_small/fixed.json.gz 2>&1 | tail -3
}

part_graphs() {
  echo "== graphs"
  timeout 300 "$G" profile workloads/configs/tuned_compile_graphs.yaml --tracer cupti --steps 5 --warmup 10 -o /tmp/prof_graphs > "$W/graphs_profile.log" 2>&1
  echo "profile exit $?"; tail -8 "$W/graphs_profile.log"
  "$G" trace --summary /tmp/prof_graphs/trace.json.gz --json > "$W/graphs_summary.json"
  "$G" trace --summary /tmp/prof_graphs/trace.json.gz | head -8
  trace_line /tmp/prof_graphs
  cp /tmp/prof_graphs/run.json "$W/graphs_run.json" 2>/dev/null
  [ "$(stat -c %s /tmp/prof_graphs/trace.json.gz 2>/dev/null || echo 99999999)" -lt 15000000 ] && cp /tmp/prof_graphs/trace.json.gz "$OUT/graphs_cupti.json.gz"
}

# goblin profile --tracer cupti on the HF Trainer script (a workload the tracer was not tuned on).
part_hf() {
  echo "== hf"
  timeout 400 "$G" profile workloads/hf_trainer/configs/hf_base.yaml --script workloads/hf_trainer/train_hf.py \
    --tracer cupti --steps 5 --warmup 6 -o /tmp/prof_hf -- {config} > "$W/hf_profile.log" 2>&1
  echo "profile exit $?"; tail -8 "$W/hf_profile.log"
  cp /tmp/prof_hf/run.json /tmp/prof_hf/hook.json "$W/" 2>/dev/null
  "$G" trace --summary /tmp/prof_hf/trace.json.gz --json > "$W/hf_summary.json"
  "$G" trace --summary /tmp/prof_hf/trace.json.gz | head -12
  trace_line /tmp/prof_hf
}

# What attaching CUPTI costs the host, with the GPU idle and with work queued
# (tracer_checks/attach_cost.py, started paused, pause = detach: every resume attaches afresh).
part_attach() {
  echo "== attach"
  rm -rf /tmp/attach
  GOBLIN_CUPTI_START_PAUSED=1 GOBLIN_CUPTI_PAUSE=detach timeout 200 "$G" trace -o /tmp/attach -- \
    python3 $DEV/tracer_checks/attach_cost.py > "$W/attach.log" 2>&1
  echo "goblin exit $?"; cat /tmp/attach/stdout.log; tail -3 /tmp/attach/stderr.log
}

# Recording after goblin_cupti_set_recording(1): tracer_checks/pause_resume.py under goblin trace,
# started recording and started paused; kernels and launch records counted per phase.
part_pauses() {
  echo "== pauses"
  # start_paused:pause mode. Started paused, CUPTI is first attached at the first resume; disable
  # (the default) keeps it attached while paused, detach detaches it at each pause.
  for m in ${PAUSE_MODES:-0:disable 1:disable 1:detach}; do
    local sp=${m%%:*} pm=${m#*:} d=/tmp/pr_${m/:/_}
    rm -rf "$d"
    GOBLIN_CUPTI_START_PAUSED=$sp GOBLIN_CUPTI_PAUSE=$pm timeout 200 "$G" trace -o "$d" -- \
      python3 $DEV/tracer_checks/pause_resume.py > "$W/pauses_${m/:/_}.log" 2>&1
    echo "start_paused=$sp pause=$pm: goblin exit $? $(grep previous_states "$d"/stdout.log)"
    cp "$d/stderr.log" "$W/pauses_${m/:/_}.stderr" 2>/dev/null
    python3 - "$d" <<'PY'
import glob, gzip, json, sys
from collections import Counter
f = max(glob.glob(sys.argv[1] + "/goblin_cupti_*.json.gz"), key=lambda p: len(open(p, "rb").read()))
doc = json.load(gzip.open(f))
ev = doc["traceEvents"]
k = Counter()
for e in ev:
    if e.get("cat") == "kernel":
        n = e["name"]
        k["mul(A)" if "MulFunctor" in n else "triton(A)" if "triton" in n else "neg(paused)" if "neg" in n
          else "abs(C)" if "abs" in n else "spin(C)" if "spin" in n else "other"] += 1
api = Counter(e["name"] for e in ev if e.get("cat") in ("cuda_runtime", "cuda_driver") and "aunch" in e["name"])
mk = sorted(e["name"] for e in ev if str(e.get("name", "")).startswith("phase"))
t = doc.get("goblin_tracer", {})
print("  kernels", dict(k), "launch records", dict(api), "ranges", mk,
      "expect mul 300, triton 50, neg 0, abs 200, spin 1; launches 551; ranges phase A, phase C")
print("  tracer", {x: t.get(x) for x in ("pause_mode", "cupti_attaches", "cupti_detaches", "detach_error",
                                         "recording_pauses", "dropped_records", "first_resume_call_ns",
                                         "resume_call_ns", "pause_call_ns")})
PY
  done
}

part_agree() {
  local cfg=$1 n; n=$(basename "$cfg" .yaml)
  echo "== agree $n"
  for tr in ${AGREE_TRACERS:-torch cupti}; do
    timeout 300 "$G" profile "$cfg" --tracer $tr --steps 5 --warmup 8 -o /tmp/prof_${n}_$tr > "$W/agree_${n}_$tr.log" 2>&1
    echo "profile $tr exit $?"; tail -4 "$W/agree_${n}_$tr.log"
    "$G" trace --summary /tmp/prof_${n}_$tr/trace.json.gz --json > "$W/agree_${n}_$tr.json"
    "$G" trace --summary /tmp/prof_${n}_$tr/trace.json.gz | sed -n 2,6p
    cp /tmp/prof_${n}_$tr/run.json "$W/agree_${n}_${tr}_run.json" 2>/dev/null
    [ "$tr" = cupti ] && trace_line /tmp/prof_${n}_$tr
  done
  [ "$(stat -c %s /tmp/prof_${n}_cupti/trace.json.gz 2>/dev/null || echo 99999999)" -lt 15000000 ] && \
    cp /tmp/prof_${n}_cupti/trace.json.gz "$OUT/${n}_cupti_window.json.gz"
}

# One run of the workload in DIR (r.json, log): MODE none (untraced), cupti[-KINDS] (goblin's tracer
# for the whole process, GOBLIN_CUPTI_KINDS = KINDS with '.' for ','; all by default) or torch
# (torch.profiler through the hook), the profiler window covering every measured step; or cuptiw
# (the tracer recording a WIN-step window only, as goblin profile runs it; cuptiwd, cuptiwa: other
# pauses) or torchw (torch.profiler recording that window, as goblin profile --tracer torch runs it).
run_mode() {
  local mode=$1 cfg=$2 steps=$3 warm=$4 d=$5
  case $mode in
    none) python3 workloads/train.py "$cfg" --steps "$steps" --warmup "$warm" --result "$d/r.json" > "$d/log" 2>&1 ;;
    cuptiw|cuptiwd|cuptiwa) # goblin profile's way: the tracer starts paused, the hook records WIN
            # steps WIN_AT steps after warm-up and times WIN unrecorded steps just before them
            # (hook.json); cuptiw pauses by detaching CUPTI (synchronising first), cuptiwd by
            # disabling the kinds, cuptiwa by disabling them and then detaching without
            # synchronisation once a CUDA event after the window has completed (GOBLIN_CUPTI_DETACH)
            local pm=detach da=0; [ "$mode" = cuptiwd ] && pm=disable; [ "$mode" = cuptiwa ] && pm=disable da=1
            env CUDA_INJECTION64_PATH=$LIB NVTX_INJECTION64_PATH=$LIB GOBLIN_CUPTI_DIR=$d PYTHONPATH=$HOOK GOBLIN_PROFILE=1 \
              GOBLIN_TRACER=cupti GOBLIN_CUPTI_START_PAUSED=1 GOBLIN_CUPTI_PAUSE=$pm GOBLIN_CUPTI_DETACH=$da GOBLIN_PROFILE_WAIT=$((warm + ${WIN_AT:-20})) \
              GOBLIN_PROFILE_ACTIVE=${WIN:-10} GOBLIN_PROFILE_COMPARE=${WIN:-10} GOBLIN_PROFILE_OUT=$d \
              python3 workloads/train.py "$cfg" --steps "$steps" --warmup "$warm" --result "$d/r.json" > "$d/log" 2>&1 ;;
    cupti*) local kinds=${mode#cupti}; kinds=${kinds#-}
            env CUDA_INJECTION64_PATH=$LIB NVTX_INJECTION64_PATH=$LIB GOBLIN_CUPTI_DIR=$d PYTHONPATH=$HOOK GOBLIN_PROFILE=1 \
              GOBLIN_CUPTI_KINDS="${kinds//./,}" \
              GOBLIN_TRACER=cupti GOBLIN_PROFILE_WAIT=$warm GOBLIN_PROFILE_ACTIVE=$((steps + 100)) GOBLIN_PROFILE_OUT=$d \
              python3 workloads/train.py "$cfg" --steps "$steps" --warmup "$warm" --result "$d/r.json" > "$d/log" 2>&1 ;;
    torchw) # goblin profile --tracer torch's way: torch.profiler records WIN steps WIN_AT steps after warm-up
            env PYTHONPATH=$HOOK GOBLIN_PROFILE=1 GOBLIN_PROFILE_WAIT=$((warm + ${WIN_AT:-20})) GOBLIN_PROFILE_ACTIVE=${WIN:-10} \
              GOBLIN_PROFILE_OUT=$d python3 workloads/train.py "$cfg" --steps "$steps" --warmup "$warm" --result "$d/r.json" > "$d/log" 2>&1 ;;
    torch) env PYTHONPATH=$HOOK GOBLIN_PROFILE=1 GOBLIN_PROFILE_WAIT=$warm GOBLIN_PROFILE_ACTIVE=$((steps + 100)) \
             GOBLIN_PROFILE_OUT=$d python3 workloads/train.py "$cfg" --steps "$steps" --warmup "$warm" --result "$d/r.json" > "$d/log" 2>&1 ;;
    *) echo "unknown mode $mode" >&2; return 2 ;;
  esac
}

# The CSV row of the run in DIR (config,repeat,mode,step_time_s,tokens_per_sec,wall_s); a failed
# run gets nan figures and its log's tail on stderr.
csv_row() {
  python3 - "$1/r.json" "$2" "$3" "$4" "$5" "$6" "$7" "$1" <<'PY'
import json, sys
p, n, r, mode, t1, t2, rc, d = sys.argv[1:]
try:
    j = json.load(open(p))
    print(f"{n},{r},{mode},{j['step_time_seconds']:.6f},{j['tokens_per_sec']:.1f},{float(t2)-float(t1):.1f}")
except Exception as e:
    print(f"{n},{r},{mode},nan,nan,{float(t2)-float(t1):.1f}")
    sys.stderr.write(f"run failed rc={rc}: {e}\n" + open(d + '/log').read()[-2000:])
PY
}

# One line about a windowed run's hook.json (cuptiw* and torchw modes): state, untraced and recorded step time,
# the recording cost, and what resuming, pausing and detaching took.
window_line() {
  python3 -c "import json;h=json.load(open('$1/hook.json'));print('  window:',h.get('state'),h.get('untraced_step_time_seconds'),h.get('step_time_seconds'),h.get('tracer_step_cost_pct'),'resume',h.get('tracer_resume_s'),'pause',h.get('tracer_pause_s'),'detach',h.get('tracer_detach'),h.get('tracer_detach_s'),h.get('error',''))" 2>&1
  trace_line "$1"
}

# The tracer's own account in the largest trace under DIR (the job's, not a compile worker's):
# pause mode, attaches, detaches, why a detach did not happen, kernels kept, records dropped.
trace_line() {
  python3 - "$1" <<'PY' 2>&1
import glob, gzip, json, os, sys
for f in sorted(glob.glob(sys.argv[1] + "/*.json.gz"), key=os.path.getsize)[-1:]:  # the job's, not a compile worker's
    t = json.load(gzip.open(f))
    g = t.get("goblin_tracer", {})
    k = sum(1 for e in t.get("traceEvents", []) if e.get("cat") == "kernel")
    print("  trace:", g.get("pause_mode"), "attaches", g.get("cupti_attaches"), "detaches", g.get("cupti_detaches"),
          "detach_error", repr(g.get("detach_error", "")), "kernels", k, "dropped", g.get("dropped_records"))
PY
}

part_overhead() {
  local cfg=$1 reps=$2 steps=$3 warm=$4 n; n=$(basename "$cfg" .yaml)
  echo "== overhead $n reps=$reps steps=$steps warmup=$warm"
  local csv="$W/overhead_$n.csv"
  echo "config,repeat,mode,step_time_s,tokens_per_sec,wall_s" > "$csv"
  for r in $(seq 1 "$reps"); do
    for mode in ${MODES:-none cupti torch}; do
      if [ "$(left)" -lt 45 ]; then echo "budget: stopping before $mode repeat $r"; return; fi
      local d=/tmp/ov_${n}_${mode}_$r; rm -rf "$d"; mkdir -p "$d"
      local t1 t2 rc; t1=$(date +%s.%N)
      run_mode "$mode" "$cfg" "$steps" "$warm" "$d"
      rc=$?; t2=$(date +%s.%N)
      csv_row "$d" "$n" "$r" "$mode" "$t1" "$t2" "$rc" >> "$csv"
      tail -1 "$csv"
      case $mode in cuptiw*|torchw) window_line "$d" ;; esac
    done
  done
  ls -la /tmp/ov_${n}_cupti_1/ 2>/dev/null | head
}

# A variant of CFG written to /tmp: base (as is), wN (N DataLoader workers), light (little CPU per
# sample), joined with '+' (w8+light).
variant_cfg() {
  local cfg=$1 name=$2 out=/tmp/variant_$2.yaml
  cp "$cfg" "$out"
  local IFS=+
  for v in $name; do
    case $v in
      base) ;;
      w[0-9]*) sed -i "s/^dataloader_num_workers:.*/dataloader_num_workers: ${v#w}/" "$out" ;;
      light) sed -i "s/^  words_per_sample:.*/  words_per_sample: 300/" "$out" ;;
      *) echo "unknown variant $v" >&2 ;;
    esac
  done
  echo "$out"
}

part_variants() {
  local cfg=$1 reps=$2 steps=$3 warm=$4 n; n=$(basename "$cfg" .yaml)
  echo "== variants $n reps=$reps steps=$steps warmup=$warm: ${VARIANTS:?}"
  local csv="$W/variants_$n.csv"
  mkdir -p "$W/variants"
  echo "config,repeat,mode,step_time_s,tokens_per_sec,wall_s" > "$csv"
  for r in $(seq 1 "$reps"); do
    for v in $VARIANTS; do
      local mode=${v%%:*} name=${v#*:} c
      if [ "$(left)" -lt 50 ]; then echo "budget: stopping before $v repeat $r"; return; fi
      c=$(variant_cfg "$cfg" "$name")
      local d=/tmp/va_${n}_${mode}_${name}_$r; rm -rf "$d"; mkdir -p "$d"
      local t1 t2 rc; t1=$(date +%s.%N)
      run_mode "$mode" "$c" "$steps" "$warm" "$d"
      rc=$?; t2=$(date +%s.%N)
      cp "$d/r.json" "$W/variants/${n}_${mode}_${name}_$r.json" 2>/dev/null
      cp "$d/hook.json" "$W/variants/${n}_${mode}_${name}_${r}_hook.json" 2>/dev/null
      case $mode in cuptiw*|torchw) window_line "$d" ;; esac
      csv_row "$d" "${n}_$name" "$r" "$mode" "$t1" "$t2" "$rc" >> "$csv"
      tail -1 "$csv"
    done
  done
}

# Kineto ingest on 2 pinned cores of this (idle) machine: the scale files made here from the
# fixture. INGEST_BASE: a baseline goblin binary (run interleaved with this one, same libraries).
part_ingest() {
  echo "== ingest"
  nproc; uptime
  [ -d .dev/ingest ] && export GOBLIN_FIXTURES=$PWD/.dev/ingest/fixtures GOBLIN_SCALE_TOOL=$PWD/.dev/ingest/scale_trace.py
  if [ ! -f bench/data/scale_kineto.json ]; then bash bench/make_scale_files.sh > "$W/make_scale.log" 2>&1 || { tail -3 "$W/make_scale.log"; return; }; fi
  ls -l bench/data/
  local bins="new:$G"
  if [ -n "${INGEST_BASE:-}" ]; then
    printf '#!/bin/sh\nLD_LIBRARY_PATH=%s${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} exec %s "$@"\n' "$GL" "$PWD/$INGEST_BASE" > /tmp/gbin/goblin_base
    chmod +x /tmp/gbin/goblin_base
    bins="base:/tmp/gbin/goblin_base new:$G"
  fi
  for f in bench/data/scale_kineto.json bench/data/scale_kineto.json.gz; do
    for i in $(seq 1 "${INGEST_REPS:-3}"); do
      for b in $bins; do
        taskset -c 0,1 /usr/bin/time -f "${b%%:*} $(basename $f) %e s %U user %S sys %M KB" "${b#*:}" info "$f" 2>&1 >/dev/null | tail -1
      done
    done
  done
  cat /sys/kernel/mm/transparent_hugepage/enabled /sys/kernel/mm/transparent_hugepage/defrag
}

# The tracer's per-kernel GPU cost: workloads/tracer_checks/kernel_gaps.py plain and under the
# tracer with each GOBLIN_CUPTI_KINDS in GAPS_KINDS (all = the default set; paused = all, with
# recording paused once CUDA has started).
part_gaps() {
  echo "== gaps"
  mkdir -p "$W/gaps"
  for rep in $(seq 1 "${GAPS_REPS:-3}"); do
    echo "none $(python3 $DEV/tracer_checks/kernel_gaps.py 2>&1 | tail -1)" | tee -a "$W/gaps/gaps.txt"
    # Modes: a kinds list (all, kernel, api, marker, kernel.memcpy, ...: recording those from
    # cuInit), or how a paused tracer is left: paused (recording from cuInit, then paused at once
    # by disabling), lazy (started paused, never attached), window-disabled / detached (started
    # paused, 300 launches recorded, then paused by disabling or by detaching).
    for k in ${GAPS_KINDS:-all lazy window-disabled detached}; do
      local d=/tmp/gaps_$k; rm -rf "$d"; mkdir -p "$d"
      local pause=0 kk=$k sp=0 pm=disable
      case $k in
        paused) pause=1 kk=all ;;
        lazy) kk=all sp=1 ;;
        detached) kk=all sp=1 pause=window pm=detach ;;
        window-disabled) kk=all sp=1 pause=window ;;
      esac
      echo "cupti-$k $(env CUDA_INJECTION64_PATH=$LIB GOBLIN_CUPTI_DIR=$d GOBLIN_CUPTI_KINDS=${kk//./,} GAPS_PAUSE=$pause \
        GOBLIN_CUPTI_START_PAUSED=$sp GOBLIN_CUPTI_PAUSE=$pm GOBLIN_CUPTI_VERBOSE=1 \
        python3 $DEV/tracer_checks/kernel_gaps.py 2>"$d.err" | tail -1) $(grep -o 'wrote.*' "$d.err" | head -1)" | tee -a "$W/gaps/gaps.txt"
    done
    echo "torch $(KG=$DEV/tracer_checks/kernel_gaps.py python3 - <<'PY' 2>&1 | tail -1
import os, runpy, sys, torch
sys.argv = ["kernel_gaps.py"]
with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU, torch.profiler.ProfilerActivity.CUDA]):
    runpy.run_path(os.environ["KG"], run_name="__main__")
PY
)" | tee -a "$W/gaps/gaps.txt"
  done
}

part_ab() {
  local cfg=$1 procs=$2 block=$3 pairs=$4 wait=$5 n; n=$(basename "$cfg" .yaml)
  echo "== ab $n procs=$procs block=$block pairs=$pairs wait=$wait"
  local csv="$W/ab_$n.csv" steps=$(( 2 * pairs * block + 10 ))
  echo "config,repeat,mode,step_time_s,tokens_per_sec,wall_s" > "$csv"
  for p in $(seq 1 "$procs"); do
    if [ "$(left)" -lt 60 ]; then echo "budget: stopping before process $p"; return; fi
    local d=/tmp/ab_${n}_$p; rm -rf "$d"; mkdir -p "$d"
    env CUDA_INJECTION64_PATH=$LIB NVTX_INJECTION64_PATH=$LIB GOBLIN_CUPTI_DIR=$d PYTHONPATH=$HOOK GOBLIN_PROFILE=1 \
        GOBLIN_TRACER=cupti GOBLIN_TRACER_AB=$block GOBLIN_TRACER_AB_PAIRS=$pairs GOBLIN_PROFILE_WAIT=$wait \
        GOBLIN_TRACER_AB_NAME="${n}_p$p" GOBLIN_PROFILE_OUT=$d \
        timeout 300 python3 workloads/train.py "$cfg" --steps "$steps" --warmup 5 --result "$d/r.json" > "$d/log" 2>&1
    echo "process $p exit $?: $(cat "$d/hook.json" | tr -d '\n ' | head -c 300)"
    tail -n +2 "$d/ab.csv" >> "$csv" 2>/dev/null || tail -5 "$d/log"
    "$G" trace --summary "$d"/goblin_cupti_*.json.gz --json 2>/dev/null | python3 -c \
      'import json,sys; r=json.load(sys.stdin)["result"]; print("  trace:", r["kernels"], "kernels", {k: r[k] for k in r if "paus" in k})' || true
  done
  wc -l "$csv"
}

part_cost() {
  echo "== cost"
  local P=$DEV/tracer_checks
  for spec in ${COST_SPECS:-none marker kernel runtime driver api kernel,api all "all|names" "all|shared" \
                             "all|devbuf=64" "all|semaphores=200000" "all|hwtrace" torch}; do
    local kinds=${spec%%|*} tune="" ops=shapes; [ "$spec" != "$kinds" ] && tune=${spec#*|}
    [ "$tune" = names ] && tune="" ops=names  # the operator observer without shapes
    rm -rf /tmp/cost; mkdir -p /tmp/cost
    case $kinds in
      none) GOBLIN_TRACER_OPS=$ops LAUNCH_COST_N=${COST_N:-10000} LAUNCH_COST_REPS=3 timeout 120 python3 $P/launch_cost.py 2>&1 | grep LAUNCH_COST ;;
      torch) LAUNCH_COST_TORCH=1 LAUNCH_COST_N=${COST_N:-10000} LAUNCH_COST_REPS=3 timeout 120 python3 $P/launch_cost.py 2>&1 | grep LAUNCH_COST ;;
      *) env CUDA_INJECTION64_PATH=$LIB NVTX_INJECTION64_PATH=$LIB GOBLIN_CUPTI_DIR=/tmp/cost GOBLIN_CUPTI_START_PAUSED=1 \
           GOBLIN_CUPTI_PAUSE=disable GOBLIN_CUPTI_KINDS=$kinds GOBLIN_CUPTI_TUNE=$tune GOBLIN_TRACER_OPS=$ops LAUNCH_COST_N=${COST_N:-10000} \
           LAUNCH_COST_REPS=3 timeout 120 python3 $P/launch_cost.py 2>&1 | grep -E "LAUNCH_COST|goblin-cupti"
         trace_line /tmp/cost
         python3 -c "import glob,gzip,json;f=glob.glob('/tmp/cost/*.json.gz');print('  tune:',json.load(gzip.open(f[0])).get('goblin_tracer',{}).get('tune')) if f else None" ;;
    esac
  done 2>&1 | tee -a "$W/cost.txt"
}

# goblin profile --tracer torch and --tracer cupti on one workload: kernel tables compared
# (tracer_checks/compare_tables.py), operators attributed, the hook's tracer_step_cost_pct.
part_ops() {
  local cfg=$1 n; n=$(basename "$cfg" .yaml)${OPS_TAG:-}
  echo "== ops $n (GOBLIN_TRACER_OPS=${GOBLIN_TRACER_OPS:-shapes})"
  local pre=() post=() warm=${OPS_WARMUP:-8}
  [ -n "${OPS_SCRIPT:-}" ] && pre=(--script "$OPS_SCRIPT") post=(-- "{config}")
  # OPS_NO_TORCH=1: the cupti runs only (another operator mode on a workload compared already)
  for tr in $([ -z "${OPS_NO_TORCH:-}" ] && echo torch) $(for i in $(seq 1 "${OPS_REPS:-1}"); do echo cupti$i; done); do
    local t=${tr%%[0-9]*} d=/tmp/ops_${n}_$tr
    rm -rf "$d"
    timeout 400 "$G" profile "$cfg" "${pre[@]}" --tracer $t --steps 5 --warmup "$warm" -o "$d" "${post[@]}" > "$W/ops_${n}_$tr.log" 2>&1
    echo "profile $tr exit $?"; tail -3 "$W/ops_${n}_$tr.log"
    "$G" trace --summary "$d/trace.json.gz" --json > "$W/ops_${n}_${tr}_summary.json" 2>&1
    python3 -c "import json;r=json.load(open('$W/ops_${n}_${tr}_summary.json'))['result'];print('  summary:',{k:r.get(k) for k in ('kernels','complete_steps','kernels_per_step_median','gpu_busy_ms_per_step_median','cpu_ops','kernels_with_op','kernel_time_with_op_pct','tracer_step_cost_pct','untraced_step_time_seconds','dropped_records')})" 2>&1
    "$G" triage "$d/trace.json.gz" -o "$d/triage" --json > /dev/null 2>&1; cp "$d/triage/kernel_table.json" "$W/kt_${n}_$tr.json" 2>/dev/null
    cp "$d/run.json" "$W/ops_${n}_${tr}_run.json" 2>/dev/null; cp "$d/hook.json" "$W/ops_${n}_${tr}_hook.json" 2>/dev/null
    [ "$t" = cupti ] && { trace_line "$d/cupti"; ls -la "$d"/trace.json.gz | awk '{print "  trace bytes", $5}'; }
  done
  [ -f "$W/kt_${n}_torch.json" ] && python3 $DEV/tracer_checks/compare_tables.py "$W/kt_${n}_torch.json" "$W/kt_${n}_cupti1.json" 2>&1 | tee "$W/compare_$n.txt"
  [ "$(stat -c %s /tmp/ops_${n}_cupti1/trace.json.gz 2>/dev/null || echo 99999999)" -lt 12000000 ] && \
    cp /tmp/ops_${n}_cupti1/trace.json.gz "$OUT/${n}_cupti_ops.json.gz"
}

# goblin trace on Python scripts that know nothing of goblin: steps (the hook's optimizer-step
# ranges) and operators found, or the hint printed.
part_tracesteps() {
  echo "== tracesteps"
  local P=$DEV/tracer_checks
  for c in "small_train|60|python3 $P/small_train.py 8" "hf|200|python3 workloads/hf_trainer/train_hf.py $P/hf_bf16.yaml" \
           "nooptim|8|python3 $P/forever.py"; do
    local nm=${c%%|*} rest=${c#*|}; local lim=${rest%%|*} cmd=${rest#*|}
    rm -rf /tmp/ts_$nm
    (env -u GOBLIN_PROFILE "$G" trace -o /tmp/ts_$nm --timeout "$lim" --json -- $cmd) > "$W/tracesteps_$nm.json" 2>&1
    echo "goblin exit $?"
    python3 -c "
import json;d=json.load(open('$W/tracesteps_$nm.json'));r=d['result'];t=(r.get('traces') or [{}])[0]
print('  $nm:', r.get('exit_code'), {k:t.get(k) for k in ('kernels','complete_steps','kernels_per_step_median','cpu_ops','kernel_time_with_op_pct','dropped_records')}, 'note:', r.get('note'))" 2>&1
  done
}

part_obsbuild() {
  echo "== obsbuild"
  local t0; t0=$(date +%s)
  PYTHONPATH=$HOOK python3 -c "import torch,goblin_ops;m=goblin_ops.load(torch);print('observer',m is not None,goblin_ops.info());print(goblin_ops._st.get('error_full',''))" 2>&1 | tail -40
  echo "  build s $(( $(date +%s) - t0 ))"
}

# One line per trace: what goblin trace --summary found.
win_summary() {
  "$G" trace --summary "$1" --json > "$2" 2>&1
  python3 -c "import json;r=json.load(open('$2'))['result'];print('  summary:',{k:r.get(k) for k in ('kernels','complete_steps','kernels_per_step_median','cpu_ops','kernels_with_op','kernel_time_with_op_pct','dropped_records')})" 2>&1
}

part_windows() {
  local n=$1 k=$2; shift 2
  local d=/tmp/win_$n; rm -rf "$d"; mkdir -p "$d/cupti"
  echo "== windows $n x$k ops=${GOBLIN_TRACER_OPS:-shapes} observer=${GOBLIN_TRACER_OBSERVER:-cpp} modules=${GOBLIN_TRACER_MODULES:-1}"
  env GOBLIN_PROFILE=1 GOBLIN_PROFILE_OUT="$d" GOBLIN_TRACER=cupti CUDA_INJECTION64_PATH="$LIB" NVTX_INJECTION64_PATH="$LIB" \
      GOBLIN_CUPTI_DIR="$d/cupti" GOBLIN_CUPTI_START_PAUSED=1 GOBLIN_CUPTI_PAUSE=disable GOBLIN_CUPTI_DETACH=1 \
      GOBLIN_PROFILE_WAIT="${WIN_WAIT:-8}" GOBLIN_PROFILE_ACTIVE=5 GOBLIN_PROFILE_COMPARE=5 GOBLIN_PROFILE_WINDOWS="$k" \
      PYTHONPATH="$HOOK" timeout "${WIN_TIMEOUT:-240}" "$@" > "$W/win_$n.log" 2>&1
  echo "exit $?"; grep -iE "error|warn|exception" "$W/win_$n.log" | head -3
  cp "$d/hook.json" "$W/win_${n}_hook.json"
  python3 -c "import json;h=json.load(open('$W/win_${n}_hook.json'));d=h.get('ops_drain') or {};print('  cost %:',[w.get('tracer_step_cost_pct') for w in h.get('windows',[])],'s/step:',[(round(w['untraced_step_time_seconds'] or 0,4),round(w['step_time_seconds'],4)) for w in h.get('windows',[])]);print('  ops:',h.get('ops'),'drain:',{a:b for a,b in d.items()})" 2>&1
  local tr; tr=$(ls -S "$d"/cupti/goblin_cupti_*.json.gz 2>/dev/null | head -1)
  [ -n "$tr" ] || { echo "  no trace"; return; }
  ls -la "$tr" | awk '{print "  trace bytes", $5}'
  win_summary "$tr" "$W/win_${n}_summary.json"
  "$G" triage "$tr" -o "$d/triage" --json > /dev/null 2>&1; cp "$d/triage/kernel_table.json" "$W/kt_win_$n.json" 2>/dev/null
  cp "$d/triage/module_table.json" "$W/mt_win_$n.json" 2>/dev/null && python3 -c "import json;m=json.load(open('$W/mt_win_$n.json'));m=m if isinstance(m,list) else m.get('rows',[]);print('  modules:',[(r.get('module'),round(r.get('share_pct',0),1)) for r in m[:6]])" 2>&1
  [ "$(stat -c %s "$tr")" -lt "${WIN_KEEP_BYTES:-0}" ] && cp "$tr" "$OUT/win_$n.json.gz"
}

part_torchwin() {
  local n=$1; shift
  local d=/tmp/tw_$n; rm -rf "$d"; mkdir -p "$d"
  echo "== torchwin $n"
  env GOBLIN_PROFILE=1 GOBLIN_PROFILE_OUT="$d" GOBLIN_PROFILE_WAIT="${WIN_WAIT:-8}" GOBLIN_PROFILE_ACTIVE=5 \
      GOBLIN_PROFILE_COMPARE=5 PYTHONPATH="$HOOK" timeout "${WIN_TIMEOUT:-240}" "$@" > "$W/tw_$n.log" 2>&1
  echo "exit $?"
  cp "$d/hook.json" "$W/tw_${n}_hook.json"
  python3 -c "import json;h=json.load(open('$W/tw_${n}_hook.json'));print('  torch.profiler cost %:',h.get('tracer_step_cost_pct'),'s/step:',h.get('untraced_step_time_seconds'),h.get('step_time_seconds'))" 2>&1
  [ -f "$d/trace.json.gz" ] || return
  win_summary "$d/trace.json.gz" "$W/tw_${n}_summary.json"
  "$G" triage "$d/trace.json.gz" -o "$d/triage" --json > /dev/null 2>&1; cp "$d/triage/kernel_table.json" "$W/kt_tw_$n.json" 2>/dev/null
  [ -f "$W/kt_win_$n.json" ] && python3 $DEV/tracer_checks/compare_tables.py "$W/kt_tw_$n.json" "$W/kt_win_$n.json" > "$W/compare_$n.txt" 2>&1 && head -12 "$W/compare_$n.txt"
}

while [ $# -gt 0 ]; do
  case $1 in
    check) part_check; shift ;;
    robust) part_robust; shift ;;
    graphs) part_graphs; shift ;;
    agree) part_agree "$2"; shift 2 ;;
    hf) part_hf; shift ;;
    attach) part_attach; shift ;;
    pauses) part_pauses; shift ;;
    overhead) part_overhead "$2" "$3" "$4" "$5"; shift 5 ;;
    variants) part_variants "$2" "$3" "$4" "$5"; shift 5 ;;
    ingest) part_ingest; shift ;;
    gaps) part_gaps; shift ;;
    ab) part_ab "$2" "$3" "$4" "$5" "$6"; shift 6 ;;
    cost) part_cost; shift ;;
    ops) part_ops "$2"; shift 2 ;;
    tracesteps) part_tracesteps; shift ;;
    obsbuild) part_obsbuild; shift ;;
    windows) part_windows "$2" "$3" "${@:4}"; shift $# ;;
    torchwin) part_torchwin "$2" "${@:3}"; shift $# ;;
    *) echo "unknown part $1"; shift ;;
  esac
  echo "[elapsed $(( $(date +%s) - T0 )) s]"
done
# At most 8 files come back: everything small in one archive.
tar -czf "$OUT/results.tgz" -C "$W" . 2>/dev/null
