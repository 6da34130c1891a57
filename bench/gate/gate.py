#!/usr/bin/env python3
"""The performance gate: instruction counts and peak memory of fixed goblin runs against budgets.

Wall-clock time on a shared 2-core machine moves by +-30 % from one run to the next, so a gate on
seconds either fails at random or lets real regressions through. The number of instructions a run
executes does not move: under Valgrind's cachegrind (--cache-sim=no counts instructions only) the
same binary on the same input executes the same instructions to within a few parts per million,
whatever else the machine is doing. CodSpeed's CPU simulation rests on the same idea.

Each case in budget.json is one goblin command on a trace committed to the repository. The gate
runs it under cachegrind, compares the instruction count with the budget, and fails when a case
rises more than --tolerance (3 %). Peak memory is measured natively (getrusage of the child) and
fails above its own tolerance (10 %: resident pages depend on the allocator and on thread timing,
so they are not as exact as instructions).

A budget only rises in a commit that says why: `--write --why "..."` records the new counts and
the reason beside each changed case, and the test reads the reason back.

    bench/gate/gate.py --goblin build/goblin               check every case (what CI runs)
    bench/gate/gate.py --goblin build/goblin --only info_  the cases whose name starts with info_
    bench/gate/gate.py --goblin build/goblin --write --why "reason"   record new budgets
    bench/gate/gate.py --self-test                         the comparison logic on made-up counts

Exit: 0 within budget, 1 over budget, 2 bad usage or a case that failed to run, 77 skipped (no
valgrind, or a build that is not Release: the counts are for the Release build only).
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
BUDGET = os.path.join(HERE, "budget.json")


def expand(argv, workdir):
    """{root} is the repository, {tmp} a fresh folder for outputs."""
    return [a.replace("{root}", ROOT).replace("{tmp}", workdir) for a in argv]


def count_instructions(goblin, argv, workdir):
    out = os.path.join(workdir, "cachegrind.out")
    cmd = ["valgrind", "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=" + out, goblin] + argv
    p = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, cwd=workdir)
    if not os.path.exists(out):
        raise RuntimeError("valgrind wrote no counts (exit %d): %s" % (p.returncode, p.stderr[-2000:]))
    with open(out) as f:
        for line in f:
            if line.startswith("summary:"):
                return int(line.split()[1]), p.returncode
    raise RuntimeError("no summary line in " + out)


def peak_rss_kib(goblin, argv, workdir):
    """Peak resident memory of one native run: wait4 gives this child's own rusage."""
    p = subprocess.Popen([goblin] + argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=workdir)
    _, status, usage = os.wait4(p.pid, 0)
    p.returncode = os.waitstatus_to_exitcode(status)
    return usage.ru_maxrss, p.returncode


def judge(case, measured_ir, measured_rss, tol_ir, tol_rss):
    """Returns (ok, lines) for one case: over budget by more than the tolerance fails; far under
    budget is reported so the budget can be lowered (a budget that never falls hides the next rise)."""
    lines = []
    ok = True
    b_ir, b_rss = case["instructions"], case["peak_rss_kib"]
    r_ir = measured_ir / b_ir
    r_rss = measured_rss / b_rss
    verdict = "ok"
    if r_ir > 1 + tol_ir:
        ok, verdict = False, "OVER BUDGET (instructions)"
    if r_rss > 1 + tol_rss:
        ok, verdict = False, verdict.replace("ok", "") + " OVER BUDGET (peak memory)"
    lines.append("%-28s instructions %14s / %14s = %6.3fx   peak %8d / %8d KiB = %5.2fx   %s" % (
        case["name"], f"{measured_ir:,}", f"{b_ir:,}", r_ir, measured_rss, b_rss, r_rss, verdict.strip()))
    if ok and r_ir < 1 - tol_ir:
        lines.append("  %s runs %.1f %% fewer instructions than its budget: lower it with --write" % (
            case["name"], 100 * (1 - r_ir)))
    return ok, lines


def self_test():
    case = {"name": "x", "instructions": 1_000_000, "peak_rss_kib": 1000}
    assert judge(case, 1_030_000, 1000, 0.03, 0.10)[0]
    assert not judge(case, 1_030_001, 1000, 0.03, 0.10)[0]
    assert not judge(case, 1_000_000, 1101, 0.03, 0.10)[0]
    ok, lines = judge(case, 900_000, 1000, 0.03, 0.10)
    assert ok and any("fewer instructions" in line for line in lines)
    assert expand(["{root}/a", "{tmp}/b"], "/t") == [ROOT + "/a", "/t/b"]
    print("gate self-test: ok")
    return 0


def release_build(goblin):
    cache = os.path.join(os.path.dirname(os.path.abspath(goblin)), "CMakeCache.txt")
    if not os.path.exists(cache):
        return True  # an installed binary: trust the caller
    with open(cache) as f:
        m = re.search(r"^CMAKE_BUILD_TYPE:STRING=(.*)$", f.read(), re.M)
    return bool(m) and m.group(1) == "Release"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--goblin", help="the goblin binary (a Release build)")
    ap.add_argument("--only", default="", help="run only the cases whose name starts with this")
    ap.add_argument("--tolerance", type=float, default=0.03, help="allowed instruction rise (0.03 = 3 %%)")
    ap.add_argument("--rss-tolerance", type=float, default=0.10, help="allowed peak-memory rise")
    ap.add_argument("--write", action="store_true", help="record the measured counts as the new budgets")
    ap.add_argument("--why", default="", help="with --write: why the budgets change (kept beside each case)")
    ap.add_argument("--json", help="write the measurements here as JSON")
    ap.add_argument("--self-test", action="store_true")
    a = ap.parse_args()
    if a.self_test:
        return self_test()
    if not a.goblin:
        ap.error("--goblin is required")
    if a.write and not a.why.strip():
        ap.error("--write needs --why: a budget only changes with its reason")
    if shutil.which("valgrind") is None:
        print("SKIP: valgrind is not installed (scripts/bootstrap installs it)")
        return 77
    if not release_build(a.goblin):
        print("SKIP: the budgets are instruction counts of the Release build; this is not one")
        return 77
    with open(BUDGET) as f:
        budget = json.load(f)
    cases = [c for c in budget["cases"] if c["name"].startswith(a.only)]
    if not cases:
        print("no case starts with %r" % a.only, file=sys.stderr)
        return 2
    all_ok = True
    results = []
    started = time.time()
    for case in cases:
        with tempfile.TemporaryDirectory(prefix="goblin-gate-") as tmp:
            argv = expand(case["argv"], tmp)
            try:
                ir, rc = count_instructions(os.path.abspath(a.goblin), argv, tmp)
            except RuntimeError as e:
                print("%s: %s" % (case["name"], e), file=sys.stderr)
                return 2
            if rc != case.get("exit", 0):
                print("%s: goblin %s exited %d, the case expects %d" % (
                    case["name"], " ".join(case["argv"]), rc, case.get("exit", 0)), file=sys.stderr)
                return 2
            rss, _ = peak_rss_kib(os.path.abspath(a.goblin), argv, tmp)
        results.append({"name": case["name"], "instructions": ir, "peak_rss_kib": rss})
        if a.write:
            if case["instructions"] != ir or case["peak_rss_kib"] != rss:
                case["why"] = a.why.strip()
            case["instructions"], case["peak_rss_kib"] = ir, rss
            print("%-28s instructions %14s   peak %8d KiB   recorded" % (case["name"], f"{ir:,}", rss))
            continue
        ok, lines = judge(case, ir, rss, a.tolerance, a.rss_tolerance)
        all_ok = all_ok and ok
        print("\n".join(lines), flush=True)
    print("%d cases in %.0f s" % (len(cases), time.time() - started))
    if a.json:
        with open(a.json, "w") as f:
            json.dump(results, f, indent=1)
    if a.write:
        with open(BUDGET, "w") as f:
            json.dump(budget, f, indent=1)
            f.write("\n")
        return 0
    if not all_ok:
        print("\nThe performance gate failed: a case executes more instructions (or holds more memory)\n"
              "than its budget in bench/gate/budget.json allows. Find the cost (valgrind --tool=callgrind\n"
              "on the case's command, then callgrind_annotate) and win it back; if the rise is the price\n"
              "of a feature, record it with `bench/gate/gate.py --goblin build/goblin --write --why \"...\"`\n"
              "in the commit that says why.")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
