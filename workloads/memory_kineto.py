"""Records the Kineto fixture of `goblin memory TRACE` (docs/memory.md): the reference workload
(workloads/train.py, unmodified) run for a few steps under torch.profiler with profile_memory=True,
the profiler started before the model is built, so every CUDA allocation of the run is a `[memory]`
event of the trace. Beside the trace it writes what the allocator itself reported
(torch.cuda.max_memory_allocated() / max_memory_reserved() of the same run), the numbers the tests
check goblin's peak against.

    python3 workloads/memory_kineto.py CONFIG --out DIR [--warmup 1 --steps 3]

Each training step is a "ProfilerStep#N" range (as profiler.step() writes them): a global module
forward pre-hook opens one at the step's first forward, a global optimizer-step post hook closes
it, so the model's construction lies outside every step.
"""

import argparse
import gzip
import json
import os
import sys

import torch
from torch.nn.modules.module import register_module_forward_pre_hook
from torch.optim.optimizer import register_optimizer_step_post_hook
from torch.profiler import ProfilerActivity, profile, record_function


class StepRanges:
    def __init__(self):
        self.n = 0
        self.open = None

    def pre_forward(self, module, args):
        if self.open is None:
            self.open = record_function(f"ProfilerStep#{self.n}")
            self.open.__enter__()

    def post_step(self, opt, args, kwargs):
        if self.open is not None:
            self.open.__exit__(None, None, None)
            self.open = None
            self.n += 1


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("config")
    ap.add_argument("--out", required=True)
    ap.add_argument("--warmup", type=int, default=1)
    ap.add_argument("--steps", type=int, default=3)
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import train  # workloads/train.py

    steps = StepRanges()
    register_module_forward_pre_hook(steps.pre_forward)
    register_optimizer_step_post_hook(steps.post_step)
    torch.cuda.init()
    torch.cuda.reset_peak_memory_stats()
    base = torch.cuda.memory_allocated()
    result = os.path.join(a.out, "train_result.json")
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA], profile_memory=True) as p:
        rc = train.main([a.config, "--warmup", str(a.warmup), "--steps", str(a.steps), "--result", result])
        torch.cuda.synchronize()
    rec = {
        "config": a.config, "warmup": a.warmup, "steps": a.steps, "train_rc": rc,
        "max_memory_allocated": torch.cuda.max_memory_allocated(),
        "max_memory_reserved": torch.cuda.max_memory_reserved(),
        "memory_allocated_before_profiling": base,
        "memory_allocated_at_end": torch.cuda.memory_allocated(),
        "profiler_steps": steps.n,
        "torch": torch.__version__, "device": torch.cuda.get_device_name(),
    }
    path = os.path.join(a.out, "kineto_memory_train.json")
    p.export_chrome_trace(path)
    with open(path, "rb") as f, gzip.open(path + ".gz", "wb", compresslevel=9) as g:
        g.write(f.read())
    os.remove(path)
    rec["trace_gz_bytes"] = os.path.getsize(path + ".gz")
    with open(os.path.join(a.out, "kineto_memory_train_meta.json"), "w") as f:
        json.dump(rec, f, indent=1, sort_keys=True)
    print(json.dumps(rec))


if __name__ == "__main__":
    main()
