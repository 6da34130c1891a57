"""Host time per launch, phase by phase in one process (bench/results/tracer, issue 30).

Run under goblin's tracer started paused with pause = disable (launch_cost.sh sets
GOBLIN_CUPTI_START_PAUSED=1 GOBLIN_CUPTI_PAUSE=disable and the recorded kinds), or with
LAUNCH_COST_TORCH=1 under no tracer (torch.profiler's phase instead). Phases, each timed as the
best of REPS repeats of N in-place adds on a small CUDA tensor (one ATen op, one kernel, one
cudaLaunchKernel each; the GPU runs each in ~2 us, so the loop is host-bound):
  untraced     CUPTI not attached yet
  recording    goblin_cupti_set_recording(1): CUPTI attached, the kinds enabled
  ops          recording, and PyTorch's RecordFunction -> NVTX observer on (the hook's operators;
               GOBLIN_TRACER_OPS=shapes|names)
  disabled     recording paused (kinds disabled, CUPTI still attached)
  torch        (LAUNCH_COST_TORCH=1) torch.profiler CPU+CUDA, record_shapes=True
Prints one JSON line: us per launch per phase.
"""
import json
import os
import sys
import time

import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "goblin_hook"))

N = int(os.environ.get("LAUNCH_COST_N", "20000"))
REPS = int(os.environ.get("LAUNCH_COST_REPS", "5"))
x = torch.zeros(256, device="cuda")


def timed():
    best = None
    for _ in range(REPS):
        torch.cuda.synchronize()
        t = time.perf_counter()
        for _ in range(N):
            x.add_(1.0)
        dt = time.perf_counter() - t
        best = dt if best is None or dt < best else best
    torch.cuda.synchronize()
    return round(best / N * 1e6, 3)


out = {"kinds": os.environ.get("GOBLIN_CUPTI_KINDS", "all"), "tune": os.environ.get("GOBLIN_CUPTI_TUNE", ""),
       "ops_mode": os.environ.get("GOBLIN_TRACER_OPS", "shapes"),
       "n": N, "reps": REPS}
timed()  # warm-up: the caching allocator, the kernel's module
out["untraced"] = timed()
if os.environ.get("LAUNCH_COST_TORCH") == "1":
    import torch.profiler as tp

    with tp.profile(activities=[tp.ProfilerActivity.CPU, tp.ProfilerActivity.CUDA], record_shapes=True):
        out["torch"] = timed()
else:
    import importlib.util

    import goblin_tracer_ctl

    # goblin's hook by path: a sitecustomize of the system may already be imported under that name
    spec = importlib.util.spec_from_file_location("goblin_hook_site", os.path.join(sys.path[0], "sitecustomize.py"))
    sitecustomize = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(sitecustomize)

    out["resume"] = goblin_tracer_ctl.set_recording(1)
    out["recording"] = timed()
    out["ops_observer"] = sitecustomize._ops_observer(torch, True)
    out["ops"] = timed()
    sitecustomize._ops_observer(torch, False)
    out["recording_again"] = timed()
    out["pause"] = goblin_tracer_ctl.set_recording(0)
    out["disabled"] = timed()
print("LAUNCH_COST " + json.dumps(out), flush=True)
