"""What does attaching CUPTI (the first goblin_cupti_set_recording(1) of a tracer started paused)
cost the host, and does it wait for the GPU?

Run under the tracer with GOBLIN_CUPTI_START_PAUSED=1 and GOBLIN_CUPTI_PAUSE=detach, so every
resume attaches CUPTI afresh. Each round resumes once with the GPU idle and once with ~100 ms of
work queued (torch.cuda._sleep), and prints the host time of each resume and of the pause that
follows. A resume that takes about as long as the queued work waits for the GPU; one that does not
costs the job only its own host time. Prints one JSON line.
"""
import ctypes
import json
import os
import time

import torch

x = torch.randn(1 << 12, device="cuda")  # cuInit: the driver loads the tracer now
lib = ctypes.CDLL(os.environ["CUDA_INJECTION64_PATH"], mode=os.RTLD_NOLOAD | os.RTLD_NOW)
rec = lib.goblin_cupti_set_recording
rec.argtypes, rec.restype = [ctypes.c_int], ctypes.c_int


def timed(fn):
    t = time.perf_counter()
    fn()
    return round((time.perf_counter() - t) * 1e3, 3)


out = {"rounds": []}
for _ in range(3):
    r = {}
    torch.cuda.synchronize()
    r["resume_idle_ms"] = timed(lambda: rec(1))
    for _ in range(100):
        x.mul_(1.0000001)
    r["pause_ms"] = timed(lambda: rec(0))
    torch.cuda.synchronize()
    torch.cuda._sleep(200_000_000)  # ~100 ms of GPU time queued ahead of the resume
    r["resume_busy_ms"] = timed(lambda: rec(1))
    r["gpu_still_busy_after_resume"] = not torch.cuda.current_stream().query()
    for _ in range(100):
        x.mul_(1.0000001)
    r["pause_busy_ms"] = timed(lambda: rec(0))
    torch.cuda.synchronize()
    out["rounds"].append(r)
t = time.perf_counter()
torch.cuda._sleep(200_000_000)
torch.cuda.synchronize()
out["sleep_ms"] = round((time.perf_counter() - t) * 1e3, 3)
print(json.dumps(out), flush=True)
