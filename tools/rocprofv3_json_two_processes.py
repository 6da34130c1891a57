#!/usr/bin/env python3
"""Writes a two-process rocprofv3 JSON from a one-process one, for goblin's several-process rocpd
fixture (tests/fixtures/rocpd/two_process_gfx950.rocpd.db.gz, built from this script's output by
tools/rocpd_from_rocprofv3_json.py).

Process 1 is the input's process (the real gfx950 run, pid 908) cut to its first N kernel
dispatches; process 2 is a constructed copy of it: pid + 1, the same kernels, each one's start
shifted by its index x 1 us and its duration x 1.25, so it runs later and slower (a straggler to
find). Kernel symbols no kept dispatch uses are dropped, and so is each symbol's heavy record
beside its name (the rocpd tool writes names only). Deterministic.

  tools/rocprofv3_json_two_processes.py rocprofv3_gfx950_results.json.gz two.json [--kernels N]
"""
import argparse
import copy
import gzip
import json


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("json", help="one-process rocprofv3 JSON (.json or .json.gz)")
    ap.add_argument("out", help="two-process JSON to write")
    ap.add_argument("--kernels", type=int, default=3000, help="kernel dispatches kept per process")
    args = ap.parse_args()
    opener = gzip.open if args.json.endswith(".gz") else open
    with opener(args.json, "rt", encoding="utf-8") as f:
        doc = json.load(f)
    (tool,) = doc["rocprofiler-sdk-tool"]
    kd = tool["buffer_records"]["kernel_dispatch"][: args.kernels]
    tool["buffer_records"]["kernel_dispatch"] = kd
    used = {r["dispatch_info"]["kernel_id"] for r in kd}
    tool["kernel_symbols"] = [s for s in tool["kernel_symbols"] if s["kernel_id"] in used]
    second = copy.deepcopy(tool)
    md = second["metadata"]
    md["pid"] = md["pid"] + 1
    md["init_time"] = md["init_time"] + 1
    for i, r in enumerate(second["buffer_records"]["kernel_dispatch"]):
        r["thread_id"] = md["pid"]
        dur = r["end_timestamp"] - r["start_timestamp"]
        r["start_timestamp"] += (i + 1) * 1000
        r["end_timestamp"] = r["start_timestamp"] + int(dur * 1.25)
    doc["rocprofiler-sdk-tool"] = [tool, second]
    with open(args.out, "w", encoding="utf-8") as f:
        json.dump(doc, f)


if __name__ == "__main__":
    main()
