#!/usr/bin/env python3
"""Writes a Kineto trace of N kernels (default 5,000,000) for `goblin query`'s GROUP BY figure.

The ~1 GB trace of make_scale_files.sh holds 0.36 M GPU ops (it is mostly CPU ops), so the
5 M-GPU-op figure needs its own input: kernels with the real names of the H100 fixture (one per
name, round robin over the fixture's kernel names in their order), back to back on two streams.

Usage: bench/make_gpu_ops_trace.py GOBLIN OUT.json [N]
"""
import csv
import io
import os
import subprocess
import sys


def main():
    goblin, out = sys.argv[1], sys.argv[2]
    n = int(sys.argv[3]) if len(sys.argv) > 3 else 5_000_000
    here = os.path.dirname(os.path.abspath(__file__))
    fixtures = os.environ.get("GOBLIN_FIXTURES", os.path.join(here, "..", "tests", "fixtures"))
    src = os.path.join(fixtures, "kineto", "h100_llama_fp32_eager_w0.json.gz")
    names = [r[0] for r in csv.reader(io.StringIO(subprocess.run(
        [goblin, "query", src, "SELECT name FROM gpu_ops WHERE kind = 'kernel'", "--format", "csv"],
        check=True, capture_output=True, text=True).stdout))][1:]
    enc = [n.replace("\\", "\\\\").replace('"', '\\"') for n in names]
    with open(out + ".tmp", "w") as f:
        f.write('{"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "NVIDIA H100 80GB HBM3", '
                '"computeMajor": 9, "computeMinor": 0, "numSms": 132}], "traceEvents": [\n')
        ts = 1_000_000.0
        for i in range(n):
            stream = 7 if i % 3 else 13
            f.write('%s{"ph": "X", "cat": "kernel", "name": "%s", "pid": 0, "tid": %d, "ts": %.3f, "dur": 2.5, '
                    '"args": {"device": 0, "stream": %d, "correlation": %d}}\n'
                    % ("," if i else "", enc[i % len(enc)], stream, ts, stream, i + 1))
            ts += 3.0
        f.write("]}\n")
    os.replace(out + ".tmp", out)
    print(f"{out}: {n} kernels over {len(set(names))} names")


if __name__ == "__main__":
    main()
