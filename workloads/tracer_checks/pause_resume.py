"""Does the tracer record the same things after goblin_cupti_set_recording(1) as from the start?

Run under the tracer (goblin trace, with or without GOBLIN_CUPTI_START_PAUSED=1). Three phases,
each with its own kernels so the trace tells them apart: recorded (300 eager mul_ launches through
the runtime API, 50 launches of a torch.compile'd Triton kernel through the driver API), paused
(300 neg_), recorded again (200 abs_, still queued behind a long kernel when recording is paused);
each phase inside an NVTX range named after it. The compile happens before the first phase. Prints the
states goblin_cupti_set_recording returned; device.sh's `pauses` part counts the trace's kernels
and launch records per phase.
"""
import ctypes
import json
import os

import torch

x = torch.randn(1 << 12, device="cuda")  # cuInit: the driver loads the tracer now
lib = ctypes.CDLL(os.environ["CUDA_INJECTION64_PATH"], mode=os.RTLD_NOLOAD | os.RTLD_NOW)
rec = lib.goblin_cupti_set_recording
rec.argtypes, rec.restype = [ctypes.c_int], ctypes.c_int


@torch.compile
def fused(a):
    return (a * 1.0001 + 0.5).relu()


fused(x)
torch.cuda.synchronize()
nvtx = torch.cuda.nvtx
states = [rec(1)]
nvtx.range_push("phase A")
for _ in range(300):
    x.mul_(1.0000001)
for _ in range(50):
    fused(x)
torch.cuda.synchronize()
nvtx.range_pop()
states.append(rec(0))
nvtx.range_push("phase B (paused)")
for _ in range(300):
    x.neg_()
torch.cuda.synchronize()
nvtx.range_pop()
states.append(rec(1))
nvtx.range_push("phase C")
torch.cuda._sleep(100_000_000)  # ~50 ms of GPU time: the abs_ kernels below are still queued
for _ in range(200):
    x.abs_()
nvtx.range_pop()
states.append(rec(0))  # paused without synchronising first, as goblin's hook does
torch.cuda.synchronize()
print(json.dumps({"previous_states": states}), flush=True)
