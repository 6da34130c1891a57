#!/usr/bin/env python3
"""Independent acceptance check of goblin's per-step GPU busy share, idle and GEMM share.

Reads the Kineto trace itself (stdlib json + gzip, exact decimal timestamps), recomputes the
documented step windows and the interval unions with its own code, and compares with
`goblin breakdown --json` and `goblin metrics --json`. Nothing here calls into goblin's code.

Definitions (docs/metrics.md § Steps):
  a step's own GPU work = the GPU ops (kernel, gpu_memcpy, gpu_memset) whose launching runtime
  call (cuda_runtime/cuda_driver, same `correlation`) began inside its ProfilerStep#N CPU span;
  first/last = its first start and last end.
  step window = [start, end): start = min(first, max(cpu start, end of the GPU ops that started
  before first)), never before the previous step's start (the CPU start without GPU work);
  end = max(cpu end, last), clipped to the next step's start. The same rule for the last step.
  busy = |union of GPU ops ∩ window|, idle = wall − busy, GEMM share = |union of GEMM kernels ∩
  window| / busy. GEMM kernels are recognised here by a plain keyword list.
  Issue 47: every step's busy equals the union of its own GPU work within 0.1 %, and the last
  step's wall is within 5 % of the other steps' mean.
Usage: check_breakdown.py --goblin BIN --fixtures DIR [trace names...]
"""
import argparse
import gzip
import json
import re
import subprocess
import sys
from decimal import Decimal

GEMM_WORDS = ("gemm", "nvjet", "cutlass", "cublas")
NOT_GEMM = ("convolve", "fprop", "dgrad", "wgrad", "fbgemm")
GPU_CATS = ("kernel", "gpu_memcpy", "gpu_memset")


def ns(us):
    return int((Decimal(us) * 1000).to_integral_value())


def union(iv):
    out = []
    for s, e in sorted(x for x in iv if x[1] > x[0]):
        if out and s <= out[-1][1]:
            out[-1][1] = max(out[-1][1], e)
        else:
            out.append([s, e])
    return out


def length_in(u, w0, w1):
    t = 0
    for s, e in u:
        s, e = max(s, w0), min(e, w1)
        if e > s:
            t += e - s
    return t


def analyse(path):
    op = gzip.open if path.endswith(".gz") else open
    with op(path, "rt") as f:
        d = json.load(f, parse_float=Decimal)
    ev = d["traceEvents"]
    steps, runtime, gpu = [], {}, []
    for e in ev:
        if e.get("ph") != "X":
            continue
        cat = e.get("cat", "")
        name = e.get("name", "")
        s = ns(e["ts"])
        t = s + ns(e.get("dur", 0))
        if cat in ("user_annotation", "cpu_op") and re.fullmatch(r"ProfilerStep#\d+", name):
            steps.append((s, t, name))
        elif cat in ("cuda_runtime", "cuda_driver") and "correlation" in e.get("args", {}):
            runtime[e["args"]["correlation"]] = s
        elif cat in GPU_CATS:
            n = name.lower()
            is_gemm = cat == "kernel" and any(w in n for w in GEMM_WORDS) and not any(w in n for w in NOT_GEMM)
            gpu.append((s, t, e.get("args", {}).get("correlation"), is_gemm))
    steps = sorted(set(steps))
    first = [None] * len(steps)
    last = [None] * len(steps)
    own = [[] for _ in steps]
    for s, t, corr, _ in gpu:
        rs = runtime.get(corr)
        if rs is None:
            continue
        k = None
        for i, (a, b, _) in enumerate(steps):
            if a <= rs < b:
                k = i
                break
        if k is None:
            continue
        first[k] = s if first[k] is None else min(first[k], s)
        last[k] = t if last[k] is None else max(last[k], t)
        own[k].append((s, t))
    by_start = sorted((s, t) for s, t, _, _ in gpu)

    def end_before(x):  # the latest end of the GPU ops that started before x, at most x
        ends = [t for s, t in by_start if s < x]
        return min(max(ends), x) if ends else None

    windows = []
    for i, (a, b, name) in enumerate(steps):
        w0 = a
        if first[i] is not None:
            e = end_before(first[i])
            w0 = min(first[i], max(a, e) if e is not None else a)
        if windows:
            w0 = max(w0, windows[-1][0])
        w1 = max(b, last[i]) if last[i] is not None else b
        windows.append([w0, w1, name])
    for i in range(len(windows) - 1):
        windows[i][1] = max(windows[i][0], min(windows[i][1], windows[i + 1][0]))
    busy_u = union([(s, t) for s, t, _, _ in gpu])
    gemm_u = union([(s, t) for s, t, _, g in gpu if g])
    out = []
    for (w0, w1, name), mine in zip(windows, own):
        busy = length_in(busy_u, w0, w1)
        gemm = length_in(gemm_u, w0, w1)
        own_busy = sum(e - s for s, e in union(mine))
        out.append(dict(name=name, wall=(w1 - w0) / 1e9, busy=busy / 1e9, idle=(w1 - w0 - busy) / 1e9,
                        busy_pct=100.0 * busy / (w1 - w0), gemm_pct=100.0 * gemm / busy if busy else 0.0,
                        own_busy=own_busy / 1e9))
    return out


def goblin(bin_, verb, path):
    r = subprocess.run([bin_, verb, path, "--json"], capture_output=True, text=True)
    j = json.loads(r.stdout)
    if not j.get("ok"):
        raise SystemExit(f"goblin {verb} failed on {path}: {j.get('error')}")
    return j["result"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--goblin", required=True)
    ap.add_argument("--fixtures", required=True)
    ap.add_argument("traces", nargs="*",
                    default=["kineto/h100_llama_fp32_eager_w0.json.gz", "kineto/h100_llama_bf16_sdpa_w4.json.gz"])
    a = ap.parse_args()
    bad = 0
    for t in a.traces:
        path = f"{a.fixtures}/{t}"
        mine = analyse(path)
        br = goblin(a.goblin, "breakdown", path)["steps"]
        met = goblin(a.goblin, "metrics", path)
        if len(mine) != len(br) or len(mine) != len(met["steps"]) or not mine:
            print(f"FAIL {t}: {len(mine)} steps here, {len(br)} in breakdown, {len(met['steps'])} in metrics")
            bad += 1
            continue
        for m, b, s in zip(mine, br, met["steps"]):
            checks = [("wall_s", m["wall"], b["wall_s"], 2e-9), ("busy_s", m["busy"], b["busy_s"], 2e-9),
                      ("idle_s", m["idle"], b["idle_s"], 2e-9), ("busy_pct", m["busy_pct"], b["busy_pct"], 2e-3),
                      ("gemm_pct", m["gemm_pct"], b["gemm_pct_of_busy"], 2e-3),
                      ("metrics.busy_s", m["busy"], s["busy_s"], 2e-9), ("metrics.wall_s", m["wall"], s["wall_s"], 2e-9)]
            for what, want, got, tol in checks:
                ok = abs(want - got) <= tol
                bad += not ok
                print(f"{'ok  ' if ok else 'FAIL'} {t} {m['name']:<16} {what:<15} independent={want:.9f} goblin={got:.9f}")
        for m, s in zip(mine, met["steps"]):
            ok = abs(s["busy_s"] - m["own_busy"]) <= 1e-3 * m["own_busy"]
            bad += not ok
            print(f"{'ok  ' if ok else 'FAIL'} {t} {m['name']:<16} busy_s {s['busy_s']:.9f} vs its own GPU work "
                  f"{m['own_busy']:.9f} (0.1 %)")
        walls = [s["wall_s"] for s in met["steps"]]
        if len(walls) > 1:
            mean = sum(walls[:-1]) / (len(walls) - 1)
            ok = abs(walls[-1] - mean) <= 0.05 * mean
            bad += not ok
            print(f"{'ok  ' if ok else 'FAIL'} {t} last step wall {walls[-1]:.6f} s vs the others' mean {mean:.6f} s (5 %)")
        w = met["waste_budget"]
        total = sum(w[k] for k in ("useful_gpu", "data_wait", "host_gap", "comm_excess", "memory_headroom",
                                   "precision_path", "kernel_shape", "unattributed"))
        ok = w["step_time_s"] > 0 and abs(total - w["step_time_s"]) <= 1e-3 * w["step_time_s"]
        bad += not ok
        print(f"{'ok  ' if ok else 'FAIL'} {t} waste buckets sum {total:.9f} vs step {w['step_time_s']:.9f}")
    print("FAILED" if bad else "PASSED", f"({bad} failures)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
