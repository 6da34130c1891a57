#!/usr/bin/env python3
"""Corpus check on traces goblin did not make (issue #34).

For every trace under the given folders (the fixtures, examples/, and the public HTA/TraceLens
test traces that tests/corpus/fetch_public_traces.sh extracts, where present):
  - kernels of family "unknown" take under 2 % of the trace's kernel time;
  - a trace whose world size is 1 has no kernel in the communication category;
  - a trace with no GPU op makes `goblin metrics` exit with the documented "no GPU activity"
    code (docs/metrics.md), never 0 with figures computed from nothing.
Prints one line per trace and the violations; exits 1 on any.

usage: check_corpus.py --goblin build/goblin DIR [DIR ...]   (missing folders are skipped)
"""
import argparse
import json
import os
import subprocess
import sys

UNKNOWN_LIMIT = 2.0  # % of kernel time
NO_GPU_EXIT = 9      # docs/metrics.md § No GPU activity (goblin --help)

# Traces whose unknown-family time is not a library the taxonomy could name, with the reason.
UNKNOWN_EXPECTED = {
    "kineto_2026_occupancy_cuda_sync.json": "its one kernel is a user kernel named `Kernel` (no library to name)",
}

TRACE_SUFFIXES = (".json", ".json.gz", ".pt.trace.json", ".sqlite")


def query(goblin, path, sql):
    r = subprocess.run([goblin, "query", path, sql, "--format", "json"], capture_output=True, text=True, timeout=600)
    if r.returncode != 0:
        return None
    data = json.loads(r.stdout)
    return [dict(zip(data["columns"], row)) for row in data["rows"]]


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


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--goblin", required=True)
    ap.add_argument("dirs", nargs="+")
    a = ap.parse_args()
    bad, n = [], 0
    for t in traces(a.dirs):
        rows = query(a.goblin, t,
                     "SELECT (SELECT max(world_size) FROM ranks) AS world, "
                     "count(*) AS ops, "
                     "coalesce(sum(CASE WHEN kind='kernel' THEN dur_ns END), 0) AS kernel_ns, "
                     "coalesce(sum(CASE WHEN kind='kernel' AND family='unknown' THEN dur_ns END), 0) AS unknown_ns, "
                     "coalesce(sum(CASE WHEN category='communication' THEN 1 END), 0) AS comm "
                     "FROM gpu_ops")
        if not rows:
            continue  # not a trace goblin reads (a CSV report, a config): the robustness table covers those
        r = rows[0]
        n += 1
        unknown = 100.0 * r["unknown_ns"] / r["kernel_ns"] if r["kernel_ns"] else 0.0
        line = f"{unknown:6.2f} % unknown  world {r['world']}  comm kernels {r['comm']:5d}  {t}"
        if unknown >= UNKNOWN_LIMIT and os.path.basename(t) in UNKNOWN_EXPECTED:
            line += f"  (expected: {UNKNOWN_EXPECTED[os.path.basename(t)]})"
        elif unknown >= UNKNOWN_LIMIT:
            bad.append(f"unknown family {unknown:.2f} % >= {UNKNOWN_LIMIT} %: {t}")
        if r["world"] == 1 and r["comm"]:
            bad.append(f"{r['comm']} communication kernels on a single-GPU trace: {t}")
        if r["ops"] == 0:
            rc = subprocess.run([a.goblin, "metrics", t], capture_output=True, text=True, timeout=600).returncode
            line += f"  (no GPU ops: metrics exit {rc})"
            if rc != NO_GPU_EXIT:
                bad.append(f"no GPU ops but `goblin metrics` exit {rc}, not {NO_GPU_EXIT}: {t}")
        print(line)
    print(f"{n} traces, {len(bad)} violations")
    for b in bad:
        print("FAIL:", b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
