#!/usr/bin/env python3
"""One step time across verbs (issue #34, docs/metrics.md § Step time).

For every trace with steps under the given folders, the step figure of each verb that reports one
must equal `goblin metrics`' step_time_s (to 1 ns; every figure is rounded to 9 decimals):
  - metrics:        step_time_s, and the waste budget's step_time_s (what its buckets partition)
  - breakdown:      step_time_s, and the mean wall_s of its complete steps
  - diff T T:       before.step_time_s and after.step_time_s
  - critical-path:  step_time_s, and the mean step_s of its complete steps
and, where the folders hold them:
  - ranks R0 R1 ...: each rank's ranks[].step_time_s against `goblin metrics` of that rank's file
    (the folders of examples/ddp_h200: one run directory per job, rank*.json.gz in it)
  - audit --replay: examples/h100_llama's report.json waste budgets and speedup_model step against
    `goblin metrics` of the two recorded traces, and kernel_diff's step change against their difference.
Triage reports no step figure. Prints one line per trace; exits 1 on any disagreement.

usage: check_step_time.py --goblin build/goblin DIR [DIR ...]   (missing folders are skipped)
"""
import argparse
import glob
import json
import os
import subprocess
import sys
import tempfile

TOL = 1.5e-9  # s: figures are written rounded to 9 decimals
TRACE_SUFFIXES = (".json", ".json.gz", ".pt.trace.json", ".sqlite")


def run_json(goblin, *args):
    r = subprocess.run([goblin, *args, "--json"], capture_output=True, text=True, timeout=600)
    try:
        d = json.loads(r.stdout)
    except json.JSONDecodeError:
        return None
    return d.get("result")


def traces(dirs):
    for d in dirs:
        if not os.path.isdir(d):
            continue
        for root, _, files in os.walk(d):
            if "/.git-src" in root:
                continue
            for f in sorted(files):
                if f.endswith(TRACE_SUFFIXES):
                    yield os.path.join(root, f)


def mean(xs):
    return sum(xs) / len(xs) if xs else None


def complete_mean(steps, key):
    use = [s[key] for s in steps if not s.get("partial")] or [s[key] for s in steps]
    return mean(use)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--goblin", required=True)
    ap.add_argument("dirs", nargs="+")
    a = ap.parse_args()
    g = a.goblin
    bad, n = [], 0
    metrics_of = {}

    def check(t, verb, fig, ref):
        if fig is None or abs(fig - ref) > TOL:
            bad.append(f"{verb}: {fig} s, metrics step_time_s {ref} s: {t}")

    for t in traces(a.dirs):
        m = run_json(g, "metrics", t)
        if not m or not isinstance(m, dict) or not m.get("step_time_s") or not m.get("steps"):
            continue  # not a trace, no GPU activity, or no step to time
        n += 1
        ref = m["step_time_s"]
        metrics_of[os.path.realpath(t)] = ref
        check(t, "metrics waste_budget.step_time_s", (m.get("waste_budget") or {}).get("step_time_s"), ref)
        b = run_json(g, "breakdown", t) or {}
        check(t, "breakdown step_time_s", b.get("step_time_s"), ref)
        check(t, "breakdown mean steps[].wall_s", complete_mean(b.get("steps") or [], "wall_s"), ref)
        d = run_json(g, "diff", t, t) or {}
        check(t, "diff before.step_time_s", (d.get("before") or {}).get("step_time_s"), ref)
        check(t, "diff after.step_time_s", (d.get("after") or {}).get("step_time_s"), ref)
        c = run_json(g, "critical-path", t) or {}
        check(t, "critical-path step_time_s", c.get("step_time_s"), ref)
        check(t, "critical-path mean steps[].step_s", complete_mean(c.get("steps") or [], "step_s"), ref)
        w = m.get("workload_step_time_s")
        print(f"{ref:.9f} s  {len(m['steps'])} steps" + (f"  (workload timer {w:.6f} s)" if w else "") + f"  {t}")

    # ranks: every folder holding rank*.json.gz files is one job.
    jobs = sorted({os.path.dirname(p) for d in a.dirs for p in glob.glob(os.path.join(d, "**", "rank*.json.gz"),
                                                                          recursive=True)})
    for job in jobs:
        files = sorted(glob.glob(os.path.join(job, "rank*.json.gz")))
        if len(files) < 2:
            continue
        r = run_json(g, "ranks", *files) or {}
        for rk in r.get("ranks") or []:
            ref = metrics_of.get(os.path.realpath(rk["files"][0])) if rk.get("files") else None
            if ref is None:
                continue
            n += 1
            check(rk["files"][0], f"ranks rank {rk['rank']} step_time_s", rk.get("step_time_s"), ref)
        print(f"ranks: {len(files)} ranks  {job}")

    # audit --replay over a recorded before/after pair.
    for d in a.dirs:
        man = os.path.join(d, "h100_llama", "replay.yaml")
        if not os.path.isfile(man):
            continue
        before = metrics_of.get(os.path.realpath(os.path.join(d, "h100_llama", "h100_llama_fp32_eager_w0.json.gz")))
        after = metrics_of.get(os.path.realpath(os.path.join(d, "h100_llama", "h100_llama_bf16_sdpa_w4.json.gz")))
        with tempfile.TemporaryDirectory() as out:
            subprocess.run([g, "audit", os.path.join(d, "h100_llama", "config_before.yaml"), "--replay",
                            os.path.join(d, "h100_llama"), "-o", out, "--json"], capture_output=True, timeout=600)
            try:
                rep = json.load(open(os.path.join(out, "report.json")))
            except (OSError, json.JSONDecodeError):
                bad.append(f"audit --replay wrote no report.json: {man}")
                continue
        n += 1
        t = "audit report " + man
        check(t, "audit waste_budget_before.step_time_s", rep["waste_budget_before"]["step_time_s"], before)
        check(t, "audit waste_budget_after.step_time_s", rep["waste_budget_after"]["step_time_s"], after)
        sm = rep.get("speedup_model") or {}
        if sm.get("step_before_s") is None or abs(sm["step_before_s"] - before) > 1e-6:  # written to 6 decimals
            bad.append(f"audit speedup_model.step_before_s {sm.get('step_before_s')} s, metrics {before} s: {t}")
        check(t, "audit kernel_diff.step_time_change_s", rep["kernel_diff"]["step_time_change_s"], after - before)
        print(f"audit: before {before:.9f} s  after {after:.9f} s  {man}")

    print(f"{n} traces, {len(bad)} disagreements")
    for b in bad:
        print("FAIL:", b)
    return 1 if bad or n == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
