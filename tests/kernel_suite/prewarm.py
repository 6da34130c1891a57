#!/usr/bin/env python3
"""Fill the compile caches for a suite run, all kernel files at once (run_h100.sh).

`goblin kernel suite` runs one file after another, and each file's harness process compiles its
Triton kernels (for the bench shape and the held-out shapes) and torch.compile's version of the
eager reference before anything is timed. On a device lent by the minute that compilation, not the
timing, is most of a run. This script does it for every file in parallel worker processes, so the
harness then finds the Triton cache (~/.triton/cache) and Inductor's FX graph cache warm. Nothing
here is timed or reported: the timings all come from the harness afterwards, one file at a time.

Usage: prewarm.py HARNESS_DIR FILE.py [FILE.py ...]   (HARNESS_DIR holds kernel_harness.py)
"""
import os
import subprocess
import sys
import time


def warm(harness_dir, path):
    import torch

    sys.path.insert(0, harness_dir)
    import kernel_harness as h  # held_out_shapes / shape_with_defaults: the shapes the harness uses

    mod = h.load_module(path)
    shape = h.shape_with_defaults(mod, {})
    for s in [shape] + h.held_out_shapes(shape):
        x = h.as_tuple(mod.make_inputs(**s))
        mod.kernel(*x)
        torch.cuda.synchronize()
        del x
    x = h.as_tuple(mod.make_inputs(**shape))
    eager = mod.baseline if hasattr(mod, "baseline") else mod.reference
    torch.compile(eager)(*x)
    torch.cuda.synchronize()


def main():
    if len(sys.argv) >= 4 and sys.argv[1] == "--one":
        t0 = time.time()
        warm(sys.argv[2], sys.argv[3])
        print(f"prewarmed {sys.argv[3]} in {time.time() - t0:.1f} s", flush=True)
        return 0
    harness_dir, files = sys.argv[1], sys.argv[2:]
    env = dict(os.environ, TORCHINDUCTOR_COMPILE_THREADS="2")
    jobs = int(os.environ.get("PREWARM_JOBS", "8"))
    pending, running, failed = list(files), [], 0
    while pending or running:
        while pending and len(running) < jobs:
            f = pending.pop(0)
            running.append((f, subprocess.Popen([sys.executable, __file__, "--one", harness_dir, f], env=env)))
        time.sleep(0.2)
        for f, p in list(running):
            if p.poll() is not None:
                running.remove((f, p))
                if p.returncode != 0:
                    failed += 1
                    print(f"prewarm of {f} failed (exit {p.returncode}); the suite reports it", flush=True)
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
