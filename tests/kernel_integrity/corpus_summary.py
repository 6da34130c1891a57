#!/usr/bin/env python3
"""Summarises a device run of run_exploits.sh corpus (its console.txt and the bench.json of each
workspace) into one JSON: per exploit and honest kernel the bench and record exit codes, whether
anything was recorded, and the named findings (the bench's integrity checks, plus `correctness`
and `held_out` when those failed). tests/fixtures/kernel_exploits/corpus_h200.json is its output
for the H200 run; tests/kernel_integrity/test_exploits.py replays it.
Usage: corpus_summary.py RUN_DIR > summary.json"""
import json
import os
import re
import sys


def findings(path):
    try:
        with open(path, encoding="utf-8") as f:
            b = json.load(f)
    except (OSError, ValueError):
        return None, None
    s = b.get("summary", b)
    out = [p.get("check") for p in s.get("integrity", {}).get("problems", [])]
    if not s.get("correctness", {}).get("passed", False) and not out:
        out.append("correctness")
    if s.get("held_out") and not s["held_out"].get("passed", False):
        out.append("held_out")
    perf = s.get("performance", {})
    return sorted(set(out)), perf


def main():
    d = sys.argv[1]
    console = open(os.path.join(d, "console.txt"), encoding="utf-8").read()
    res = {"exploits": [], "honest": [], "runtime": []}
    for m in re.finditer(r"^EXPLOIT (\S+) bench_exit=(\d+) record_exit=(\d+) recorded=(\d+)", console, re.M):
        f, _ = findings(os.path.join(d, m.group(1) + ".bench.json"))
        res["exploits"].append({"id": m.group(1), "bench_exit": int(m.group(2)), "record_exit": int(m.group(3)),
                                "recorded": int(m.group(4)), "findings": f or []})
    for m in re.finditer(r"^HONEST (\S+) bench_exit=(\d+) record_exit=(\d+) recorded=(\d+)", console, re.M):
        n = "honest_" + m.group(1).replace("/", "_")
        f, perf = findings(os.path.join(d, n + ".bench.json"))
        res["honest"].append({"kernel": m.group(1), "bench_exit": int(m.group(2)), "record_exit": int(m.group(3)),
                              "recorded": int(m.group(4)), "findings": f or [],
                              "median_latency_ms": (perf or {}).get("median_latency_ms"),
                              "pct_of_ceiling": (perf or {}).get("pct_of_ceiling")})
    for m in re.finditer(r"^RUNTIME (\S+) exit=(\d+) (.*)$", console, re.M):
        try:
            with open(os.path.join(d, m.group(1) + ".runtime.json"), encoding="utf-8") as f:
                r = json.load(f)
            checks = sorted({p["check"] for p in r["integrity"]["problems"]})
        except (OSError, ValueError, KeyError):
            checks = []
        res["runtime"].append({"id": m.group(1), "exit": int(m.group(2)), "findings": checks})
    json.dump(res, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()
