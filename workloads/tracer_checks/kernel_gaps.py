"""What tracing costs per kernel, on the host and on the GPU, separately.

Prints one JSON line:
  host_launch_us   host time per eager launch of a tiny kernel while the GPU is busy (the
                   launches only queue: this is the launch path's cost, tracer callbacks included)
  gpu_large_us     GPU time per ~48 us elementwise kernel, back to back (the host queued far ahead)
  gpu_graph_us     GPU time per tiny kernel replayed from a CUDA graph (one host call per 200)
Run it plain and under the tracer (CUDA_INJECTION64_PATH, GOBLIN_CUPTI_KINDS, GOBLIN_CUPTI_PAUSE,
GOBLIN_CUPTI_START_PAUSED; GAPS_PAUSE=1 pauses recording right after CUDA starts, GAPS_PAUSE=window
records 300 launches first) and compare.
"""
import ctypes
import json
import os
import time
import torch

torch.cuda.init()
_pause = os.environ.get("GAPS_PAUSE", "0")
if _pause in ("1", "window"):
    lib = ctypes.CDLL(os.environ["CUDA_INJECTION64_PATH"], mode=os.RTLD_NOLOAD | os.RTLD_NOW)
    rec = lib.goblin_cupti_set_recording
    rec.argtypes, rec.restype = [ctypes.c_int], ctypes.c_int
    if _pause == "1":
        # Recording stopped right after CUDA starts (goblin_cupti_set_recording(0)): what a paused
        # tracer still costs (GOBLIN_CUPTI_PAUSE=disable: attached, every kind disabled; detach:
        # CUPTI detached).
        print("paused: previous state", rec(0), flush=True)
    else:
        # A recorded window of 300 launches, then paused: what the steps after a profiled window
        # pay (started with GOBLIN_CUPTI_START_PAUSED=1).
        w = torch.randn(1 << 12, device="cuda")
        states = [rec(1)]
        for _ in range(300):
            w.mul_(1.0000001)
        torch.cuda.synchronize()
        states.append(rec(0))
        print("window: previous states", states, flush=True)
dev = torch.device("cuda")
small = torch.randn(1 << 12, device=dev)
large = torch.randn(1 << 24, device=dev)


def host_launch_us(n=500, reps=7):
    small.mul_(1.0000001)
    torch.cuda.synchronize()
    best = float("inf")
    for _ in range(reps):
        torch.cuda._sleep(200_000_000)  # ~100 ms of GPU time: the launches below only queue
        t = time.perf_counter()
        for _ in range(n):
            small.mul_(1.0000001)
        best = min(best, (time.perf_counter() - t) * 1e6 / n)
        torch.cuda.synchronize()
    return best


def gpu_us(fn, n, reps=5):
    fn(n)
    torch.cuda.synchronize()
    best = float("inf")
    for _ in range(reps):
        a = torch.cuda.Event(enable_timing=True)
        b = torch.cuda.Event(enable_timing=True)
        torch.cuda._sleep(100_000_000)
        a.record()
        fn(n)
        b.record()
        torch.cuda.synchronize()
        best = min(best, a.elapsed_time(b) * 1000.0 / n)
    return best


def eager_large(n):
    for _ in range(n):
        large.mul_(1.0000001)


g = torch.cuda.CUDAGraph()
s = torch.cuda.Stream()
s.wait_stream(torch.cuda.current_stream())
with torch.cuda.stream(s):
    for _ in range(3):
        small.mul_(1.0000001)
torch.cuda.current_stream().wait_stream(s)
with torch.cuda.graph(g):
    for _ in range(200):
        small.mul_(1.0000001)


def graph(n):
    for _ in range(n // 200):
        g.replay()


print(json.dumps({
    "host_launch_us": round(host_launch_us(), 3),
    "gpu_large_us": round(gpu_us(eager_large, 300), 3),
    "gpu_graph_us": round(gpu_us(graph, 2000), 3),
}), flush=True)
