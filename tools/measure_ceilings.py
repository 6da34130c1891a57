#!/usr/bin/env python3
"""Measured ceilings beside datasheet peaks (goblin specs --measure).

Runs on the local GPU with PyTorch (CUDA or ROCm):
  * device-to-device copy bandwidth: dst.copy_(src) on a large buffer; bytes counted = read + write
    (2 x size), the convention of STREAM "copy" and of nvbandwidth's device-local copy;
  * dense GEMM throughput: C = A @ B, 2*M*N*K FLOPs per call, for bf16, fp16, fp32 (SIMT: TF32
    disabled) and tf32 (TF32 enabled).
Timing: CUDA events around `iters` back-to-back calls after `warmup` calls, repeated `repeats`
times; the median and the best repeat are reported. Prints human lines and, with --json, one JSON
object on the last line. Exit 7 (goblin's Environment code) without torch or a GPU.
"""
import argparse
import datetime
import json
import platform
import statistics
import subprocess
import sys


def fail(msg, as_json):
    if as_json:
        print(json.dumps({"error": msg}))
    else:
        print("error: " + msg, file=sys.stderr)
    sys.exit(7)


def timed(torch, fn, warmup, iters, repeats):
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(repeats):
        s = torch.cuda.Event(enable_timing=True)
        e = torch.cuda.Event(enable_timing=True)
        s.record()
        for _ in range(iters):
            fn()
        e.record()
        e.synchronize()
        times.append(s.elapsed_time(e) / 1e3 / iters)  # seconds per call
    return times


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--copy-mib", type=int, default=2048)
    ap.add_argument("--gemm", type=int, default=8192, help="M=N=K")
    ap.add_argument("--repeats", type=int, default=10)
    a = ap.parse_args()
    try:
        import torch
    except Exception as ex:  # noqa: BLE001
        fail("PyTorch is not importable (%s)" % ex, a.json)
    if not torch.cuda.is_available():
        fail("torch.cuda.is_available() is False: no GPU visible to PyTorch", a.json)

    dev = torch.device("cuda")
    props = torch.cuda.get_device_properties(dev)
    out = {
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "device_name": torch.cuda.get_device_name(dev),
        "device_sm_count": props.multi_processor_count,
        "device_memory_bytes": props.total_memory,
        "torch": torch.__version__,
        "cuda": torch.version.cuda,
        "hip": getattr(torch.version, "hip", None),
        "host": platform.node(),
        "method": {
            "copy": "dst.copy_(src), %d MiB fp32 buffers, bytes = 2 x size (read+write), CUDA events, "
                    "median and best of %d repeats x 20 calls after 5 warm-up calls" % (a.copy_mib, a.repeats),
            "gemm": "torch.matmul square M=N=K=%d, FLOPs = 2*M*N*K, CUDA events, median and best of %d "
                    "repeats x 10 calls after 5 warm-up calls" % (a.gemm, a.repeats),
        },
    }
    try:
        drv = subprocess.run(["nvidia-smi", "--query-gpu=driver_version,clocks.max.sm", "--format=csv,noheader"],
                             capture_output=True, text=True, timeout=20)
        if drv.returncode == 0:
            out["nvidia_smi"] = drv.stdout.strip().splitlines()[0]
    except Exception:  # noqa: BLE001
        pass

    n = a.copy_mib * 1024 * 1024 // 4
    src = torch.empty(n, dtype=torch.float32, device=dev).uniform_()
    dst = torch.empty_like(src)
    t = timed(torch, lambda: dst.copy_(src), 5, 20, a.repeats)
    nbytes = 2 * src.numel() * src.element_size()
    out["copy_bandwidth_gbs"] = round(nbytes / statistics.median(t) / 1e9, 1)
    out["copy_bandwidth_gbs_best"] = round(nbytes / min(t) / 1e9, 1)
    src = dst = None  # frees the buffers before the GEMMs (the timed lambda no longer runs)
    torch.cuda.empty_cache()

    gemms = []
    m = a.gemm
    for name, dtype, tf32 in (("bf16", torch.bfloat16, False), ("fp16", torch.float16, False),
                              ("tf32", torch.float32, True), ("fp32", torch.float32, False)):
        torch.backends.cuda.matmul.allow_tf32 = tf32
        A = torch.randn(m, m, dtype=dtype, device=dev)
        B = torch.randn(m, m, dtype=dtype, device=dev)
        t = timed(torch, lambda: torch.matmul(A, B), 5, 10, a.repeats)
        flops = 2.0 * m * m * m
        gemms.append({"dtype": name, "shape": [m, m, m], "allow_tf32": tf32,
                      "tflops": round(flops / statistics.median(t) / 1e12, 1),
                      "tflops_best": round(flops / min(t) / 1e12, 1)})
        A = B = None
        torch.cuda.empty_cache()
    torch.backends.cuda.matmul.allow_tf32 = False
    out["gemm"] = gemms

    print("device: %s (%d SMs/CUs)" % (out["device_name"], out["device_sm_count"]))
    print("copy bandwidth: %.1f GB/s median, %.1f best" % (out["copy_bandwidth_gbs"], out["copy_bandwidth_gbs_best"]))
    for g in gemms:
        print("gemm %s %s: %.1f TFLOP/s median, %.1f best" % (g["dtype"], g["shape"], g["tflops"], g["tflops_best"]))
    if a.json:
        print(json.dumps(out))


if __name__ == "__main__":
    main()
