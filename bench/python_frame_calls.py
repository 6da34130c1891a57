#!/usr/bin/env python3
"""Times trace.gpu_ops() called N times in one process (pandas imported, the trace loaded once),
as a notebook calls it: the first call also classifies every kernel; each later one only
builds the frame. Prints wall and CPU seconds per call (CPU: the process's user + system, all
threads), the frame's own bytes (DataFrame.memory_usage) and the peak RSS after each call.

Usage: PYTHONPATH=BUILD/python python3 bench/python_frame_calls.py FILE [N]
"""
import resource
import sys
import time

import pandas  # noqa: F401  (imported first, as in a notebook: not part of any call)

import goblin


def main():
    path = sys.argv[1]
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    t0, c0 = time.perf_counter(), time.process_time()
    trace = goblin.load(path)
    print(f"load        {time.perf_counter() - t0:6.2f} s wall {time.process_time() - c0:6.2f} s cpu  "
          f"peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:7.0f} MB")
    for i in range(n):
        t0, c0 = time.perf_counter(), time.process_time()
        df = trace.gpu_ops()
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
        mb = df.memory_usage(index=False, deep=False).sum() / 1e6
        print(f"gpu_ops #{i + 1}  {wall:6.2f} s wall {cpu:6.2f} s cpu  {len(df):,} rows  frame {mb:6.0f} MB  "
              f"peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:7.0f} MB")
        del df


if __name__ == "__main__":
    main()
