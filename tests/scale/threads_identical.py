#!/usr/bin/env python3
"""goblin info and triage give the same bytes at --threads 1 and --threads 4 (docs/scale.md § Threads).

Each fixture is read at --threads 1 (the one-thread reader) and at --threads 4 with the Kineto
block reader forced on and cut into small blocks (GOBLIN_KINETO_MODE=blocks, GOBLIN_KINETO_BLOCK_KB),
so one small trace becomes dozens of blocks parsed on four threads, merged in file order and sorted on
the worker threads. The --json outputs and every triage artifact must be byte-identical; info's two
timing fields (seconds, mb_per_s_on_disk) are the only bytes masked. --phase-times proves the blocks
were really read in parallel.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

CASES = [  # fixture under tests/fixtures, block size in KiB (small: many blocks)
    ("kineto/h100_llama_fp32_eager_w0.json.gz", 256),
    ("kineto/h100_torch211_export_chrome_trace.json", 8),
]
TIMING = re.compile(r'^\s*"(seconds|mb_per_s_on_disk)": .*$', re.M)


def run(goblin, args, cwd, threads, block_kb):
    env = dict(os.environ)
    env.pop("GOBLIN_KINETO_THREADS", None)
    if threads > 1:
        env.update(GOBLIN_KINETO_MODE="blocks", GOBLIN_KINETO_BLOCK_KB=str(block_kb))
    p = subprocess.run([goblin] + args + ["--json", "--threads", str(threads), "--phase-times"], cwd=cwd, env=env,
                       capture_output=True, text=True, timeout=60)
    if p.returncode != 0:
        sys.exit(f"FAIL: {' '.join(args)} --threads {threads} exited {p.returncode}: {p.stderr[-2000:]}")
    return p.stdout, p.stderr


def blocks_parsed(stderr):
    m = re.search(r"read: blocks, split\+parse\s+\S+\s+\S+\s+(\d+)", stderr)
    return int(m.group(1)) if m else 0


def tree(d):
    out = {}
    for root, _, files in os.walk(d):
        for f in files:
            p = os.path.join(root, f)
            with open(p, "rb") as fh:
                out[os.path.relpath(p, d)] = fh.read()
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--goblin", required=True)
    ap.add_argument("--fixtures", required=True)
    a = ap.parse_args()
    goblin = os.path.abspath(a.goblin)
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        for rel, block_kb in CASES:
            trace = os.path.join(os.path.abspath(a.fixtures), rel)
            for verb in ("info", "triage"):
                outs = {}
                for threads in (1, 4):
                    cwd = os.path.join(tmp, f"{verb}-{threads}-{os.path.basename(rel)}")
                    os.makedirs(cwd)
                    args = [verb, trace] + (["--out", "triage"] if verb == "triage" else [])
                    stdout, stderr = run(goblin, args, cwd, threads, block_kb)
                    if verb == "info":
                        stdout = TIMING.sub("", stdout)
                    outs[threads] = (stdout, tree(cwd), blocks_parsed(stderr))
                one, four = outs[1], outs[4]
                if four[2] < 8:
                    print(f"FAIL: {rel} {verb} --threads 4 parsed {four[2]} blocks in parallel (expected >= 8)")
                    failures += 1
                if one[0] != four[0]:
                    print(f"FAIL: {rel} {verb} --json differs between --threads 1 and --threads 4")
                    failures += 1
                if one[1] != four[1]:
                    differ = sorted(k for k in set(one[1]) | set(four[1]) if one[1].get(k) != four[1].get(k))
                    print(f"FAIL: {rel} {verb} artifacts differ between --threads 1 and 4: {differ}")
                    failures += 1
                if not one[1] and verb == "triage":
                    print(f"FAIL: {rel} triage wrote no artifacts")
                    failures += 1
                print(f"{rel} {verb}: {len(one[0])} bytes of JSON, {len(one[1])} artifact files, "
                      f"{four[2]} blocks at --threads 4: {'identical' if one[:2] == four[:2] else 'DIFFERENT'}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
