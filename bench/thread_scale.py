#!/usr/bin/env python3
"""One large trace on 1..N threads: goblin info and triage wall, CPU and peak RSS per --threads,
and whether every thread count gives the same bytes (bench/results/scale_threads/README.md).

Usage: bench/thread_scale.py --goblin GOBLIN --trace BIG.json --out DIR [--threads 1,2,4,8,16]
           [--timeout S]

For each thread count: `goblin info TRACE --json --threads N` (three runs from 4 threads up, one
below, where a run takes long), then `goblin triage ... --threads N` (none at first, one at the
largest count); then one more run of each with --phase-times for the per-phase table. Each run's wall, user+sys
CPU and peak RSS come from os.wait4 on the child. Writes DIR/thread_scale.csv (one row per run),
DIR/phases_<verb>_<N>.txt and DIR/identical.txt (a sha256 of each output per thread count, info's
two timing fields masked).
"""
import argparse
import csv
import hashlib
import os
import re
import subprocess
import sys
import time

TIMING = re.compile(rb'^\s*"(seconds|mb_per_s_on_disk)": .*$', re.M)


def measured(argv, timeout, env=None):
    """(stdout, stderr, rc, wall s, cpu s, peak RSS MB) of one child, by os.wait4."""
    t0 = time.monotonic()
    p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    out_chunks, err_chunks = [], []
    import threading

    def pump(src, dst):
        for b in iter(lambda: src.read(1 << 20), b""):
            dst.append(b)

    ts = [threading.Thread(target=pump, args=(p.stdout, out_chunks)),
          threading.Thread(target=pump, args=(p.stderr, err_chunks))]
    for t in ts:
        t.start()
    deadline = t0 + timeout
    while True:
        pid, status, ru = os.wait4(p.pid, os.WNOHANG)
        if pid:
            break
        if time.monotonic() > deadline:
            p.kill()
            pid, status, ru = os.wait4(p.pid, 0)
            for t in ts:
                t.join()
            return None
        time.sleep(0.005)
    wall = time.monotonic() - t0
    for t in ts:
        t.join()
    p.returncode = os.waitstatus_to_exitcode(status)
    return (b"".join(out_chunks), b"".join(err_chunks), p.returncode, wall, ru.ru_utime + ru.ru_stime,
            ru.ru_maxrss / 1024.0)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--goblin", required=True)
    ap.add_argument("--trace", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--threads", default="1,2,4,8,16")
    ap.add_argument("--timeout", type=float, default=120)
    ap.add_argument("--verbs", default="info,triage")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    size = os.path.getsize(a.trace)
    counts = [int(x) for x in a.threads.split(",")]
    rows, digests = [], {}
    work = os.path.join(a.out, "work")
    for verb in a.verbs.split(","):
        for n in counts:
            # Runs before the phase-times run: info's fast counts three (a median), its slow ones and
            # triage's one (two at the largest count); the phase-times run is timed too.
            reps = (3 if n >= 4 else 1) if verb == "info" else (1 if n == counts[-1] else 0)
            for rep in range(reps + 1):
                phases = rep == reps  # the last run prints the phase table
                argv = [a.goblin, verb, a.trace, "--json", "--threads", str(n)]
                if verb == "triage":
                    argv += ["--out", os.path.join(work, "triage")]
                if phases:
                    argv.append("--phase-times")
                r = measured(argv, a.timeout)
                if r is None:
                    print(f"{verb} --threads {n}: timed out after {a.timeout} s", flush=True)
                    rows.append([verb, n, rep, "timeout", "", "", "", size, phases])
                    break
                out, err, rc, wall, cpu, rss = r
                if phases:
                    with open(os.path.join(a.out, f"phases_{verb}_{n}.txt"), "wb") as f:
                        f.write(err)
                body = TIMING.sub(b"", out) if verb == "info" else out
                h = hashlib.sha256(body)
                if verb == "triage":
                    tdir = os.path.join(work, "triage")
                    for name in sorted(os.listdir(tdir)):
                        with open(os.path.join(tdir, name), "rb") as f:
                            h.update(name.encode() + b"\0" + f.read())
                digests.setdefault(verb, {}).setdefault(n, set()).add(h.hexdigest())
                rows.append([verb, n, rep, rc, f"{wall:.3f}", f"{cpu:.3f}", f"{rss:.1f}", size, phases])
                print(f"{verb} --threads {n} run {rep}{' (phase times)' if phases else ''}: rc {rc}, "
                      f"{wall:.2f} s wall, {cpu:.2f} s CPU, {rss:.0f} MB peak RSS, "
                      f"{size / 1e9 / wall:.2f} GB/s", flush=True)
    with open(os.path.join(a.out, "thread_scale.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["verb", "threads", "run", "rc", "wall_s", "cpu_s", "peak_rss_mb", "trace_bytes", "phase_times"])
        w.writerows(rows)
    ok = True
    with open(os.path.join(a.out, "identical.txt"), "w") as f:
        for verb, per in digests.items():
            allh = set().union(*per.values())
            same = len(allh) == 1
            ok = ok and same
            f.write(f"{verb}: {'identical' if same else 'DIFFERENT'} across --threads "
                    f"{','.join(str(n) for n in per)}\n")
            for n, hs in per.items():
                f.write(f"  {n}: {' '.join(sorted(hs))}\n")
    print(open(os.path.join(a.out, "identical.txt")).read())
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
