#!/usr/bin/env python3
"""Stacks copies of one real Kineto trace into one large trace, on every core.

Usage: stack_kineto.py IN.json[.gz] OUT.json COPIES [PROCESSES]

The same stacking as ../shared/tools/scale_trace.py (bench/make_scale_files.sh): each copy's
events shifted in time by the input's span, correlation, flow and External ids offset so every
link stays unique, the input's top-level metadata kept once. The copies are written by a pool
of processes (a 10 GB trace in about a minute on 16 cores instead of ten on one) and joined in
order, so the output is the same bytes whatever PROCESSES is.
"""
import gzip
import json
import multiprocessing
import sys

EVENTS = None
SHIFT = 0.0
ID_STEP = 10 ** 8


def load(src):
    opener = gzip.open if src.endswith(".gz") else open
    with opener(src, "rt", encoding="utf-8") as f:
        return json.load(f)


def init(src):
    global EVENTS, SHIFT
    doc = load(src)
    EVENTS = doc["traceEvents"]
    spans = [(e["ts"], e["ts"] + e.get("dur", 0)) for e in EVENTS if isinstance(e.get("ts"), (int, float))]
    t0, t1 = min(s for s, _ in spans), max(e for _, e in spans)
    SHIFT = (t1 - t0) * 1.001


def copy_text(i):
    out = []
    for e in EVENTS:
        if i and e.get("ph") == "M":
            continue
        e2 = dict(e)
        if i:
            if isinstance(e2.get("ts"), (int, float)):
                e2["ts"] = round(e2["ts"] + i * SHIFT, 3)
            if "id" in e2 and isinstance(e2["id"], int):
                e2["id"] += i * ID_STEP
            a = e2.get("args")
            if isinstance(a, dict):
                a = dict(a)
                for k in ("correlation", "External id", "Record function id"):
                    if isinstance(a.get(k), int):
                        a[k] += i * ID_STEP
                e2["args"] = a
        out.append(json.dumps(e2, separators=(", ", ": ")))
    return ",\n".join(out)


def main():
    src, dst, copies = sys.argv[1], sys.argv[2], int(sys.argv[3])
    procs = int(sys.argv[4]) if len(sys.argv) > 4 else multiprocessing.cpu_count()
    doc = load(src)
    doc.pop("traceEvents")
    with open(dst, "w", encoding="utf-8") as out:
        head = json.dumps(doc)[:-1]
        out.write(head + (", " if doc else "") + '"traceEvents": [\n')
        with multiprocessing.Pool(procs, initializer=init, initargs=(src,)) as pool:
            for i, text in enumerate(pool.imap(copy_text, range(copies), chunksize=1)):
                if i:
                    out.write(",\n")
                out.write(text)
        out.write("\n]}\n")


if __name__ == "__main__":
    main()
