#!/usr/bin/env python3
"""Roofline coverage of every Kineto trace (issue #31's acceptance, the measurement behind
src/app/roofline_coverage_test.cpp): runs `goblin roofline --json` on each trace of
tests/fixtures/kineto and examples/ (the test's enumeration), alone and, where
tests/roofline/coverage.json names one, with its capture trace (--capture), and prints per trace
the unmodelled share, the unmodelled time by cause and the kernels with most of it.

  tests/roofline/coverage_report.py --goblin build/goblin [--fixtures tests/fixtures] [--top 3]

Exit status 1 when a trace that coverage.json does not exempt is over the 5 % bound.
"""
import argparse
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
BOUND = 0.05


def traces(fixtures):
    out = []
    for root in (os.path.join(fixtures, "kineto"), os.path.join(REPO, "examples")):
        for d, _, files in os.walk(root):
            for f in files:
                p = os.path.join(d, f)
                if p.endswith(".json.gz") or (p.endswith(".json") and "/configs/" not in p
                                              and "overlap_result" not in p):
                    out.append(p)
    return sorted(out)


def roofline(goblin, path, capture=None):
    args = [goblin, "roofline", path, "--json"]
    if capture:
        args += ["--capture", capture]
    r = json.loads(subprocess.run(args, capture_output=True, text=True).stdout or "{}")
    res = r.get("result") or {}
    if "unmodelled_share" not in res and (r.get("error_detail") or {}).get("kind") == "not_found":
        r = json.loads(subprocess.run(args + ["--gpu", "H100-SXM"], capture_output=True, text=True).stdout or "{}")
        res = r.get("result") or {}
    return res


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--goblin", default=os.path.join(REPO, "build", "goblin"))
    ap.add_argument("--fixtures", default=os.path.join(REPO, "tests", "fixtures"))
    ap.add_argument("--top", type=int, default=3)
    a = ap.parse_args()
    with open(os.path.join(HERE, "coverage.json")) as f:
        table = json.load(f)
    over = []
    for t in traces(a.fixtures):
        name = os.path.basename(os.path.dirname(t)) + "/" + os.path.basename(t)
        alone = roofline(a.goblin, t)
        if "unmodelled_share" not in alone:
            print(f"{name}: no trace-mode roofline")
            continue
        cap = table["capture"].get(name)
        res = roofline(a.goblin, t, os.path.join(REPO, cap)) if cap else alone
        share = res["unmodelled_share"]
        cov = res["coverage"]
        exempt = table["exempt"].get(name)
        status = "ok" if share <= BOUND else ("EXEMPT" if exempt else "OVER")
        if status == "OVER":
            over.append(name)
        line = f"{name}: {share:.4f}"
        if cap:
            line += f" with --capture {os.path.basename(cap)} (alone {alone['unmodelled_share']:.4f})"
        src = ", ".join(f"{k} {v / 1e3:.1f} ms" for k, v in sorted(cov["modelled_us_by_source"].items()))
        print(f"{line} [{status}] of {cov['gpu_op_time_us'] / 1e3:.1f} ms GPU-op time; modelled: {src}")
        if exempt:
            print(f"    exempt: {exempt['cause']}")
        for why, us in sorted(cov["unmodelled_us_by_category"].items(), key=lambda x: -x[1]):
            print(f"    unmodelled {why}: {us / 1e3:.2f} ms")
        for u in cov.get("unmodelled_top", [])[: a.top]:
            print(f"      {u['time_us'] / 1e3:8.2f} ms x{u['count']:<5} {u['kernel'][:110]} ({u['why']})")
    if over:
        print("over the bound and not exempt: " + ", ".join(over))
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
