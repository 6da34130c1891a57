#!/usr/bin/env python3
"""Stand-in for workloads/train.py on the simulated ROCm host (tests/sim_rocm): the same command line
and result contract (CONFIG --steps N --warmup W --result PATH), no torch, no GPU.

It "trains" the reference Llama-style model of the config on the manifest's GPU
($GOBLIN_SIM_ROCM_HOST) by a small cost model, and writes what goblin reads from a real run:
  - result.json ($GOBLIN_RESULT / --result): step_time_seconds, step_times, tokens_per_sec, env;
  - when goblin profile injected its hook (GOBLIN_PROFILE=1, GOBLIN_PROFILE_OUT): hook.json and an
    AMD Kineto trace, trace.json.gz, shaped like PyTorch's on ROCm (deviceProperties of the GPU,
    roctracer/HIP versions, hipLaunchKernel runtime events, "Dispatch Kernel" kernels, ac2g flows,
    ProfilerStep#N, the DataLoader span);
  - under the rocprofv3 stand-in (GOBLIN_SIM_ROCPROF_DISPATCHES): each kernel dispatch as one JSON
    line, which the stand-in writes out as rocprofv3's kernel trace.
The kernels follow the config: fp32 runs Tensile/hipBLASLt single-precision GEMMs (Cijk_..._SB_...)
at the FP32 matrix rate, bf16 the Cijk_..._BBS_... GEMMs at the bf16 rate; eager attention runs
bmm + softmax kernels, sdpa AOTriton's attn_fwd / bwd_kernel_* (PyTorch's ROCm SDPA backend),
flash_attention_2 CK's FmhaFwd/FmhaBwd; dataloader_num_workers 0 leaves the GPU idle while the
step's batch is prepared. Kernel names are real ones (tests/fixtures/sim_rocm/amd_kernel_names.json).

Time: the simulated step time (ms) comes from the cost model; the process sleeps that time scaled
by $GOBLIN_SIM_TIME_SCALE (default 0.1) and reports the scaled-back time, so a bf16 patch really
makes the next bench faster. GOBLIN_STANDIN_EXACT=1 reports the nominal times (verdicts that must
not depend on a loaded machine's sleep).
"""
import gzip
import json
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import simhost  # noqa: E402

# The rates the cost model runs at: fractions of the cited peaks in data/gpus.yaml (MI300X: FP32
# matrix 163.4, BF16 1307.4 TFLOPS, 5.3 TB/s; MI355X: FP32 157.3, BF16 2516.6, 8 TB/s). Model
# parameters of the simulation, not measurements.
RATES = {"gfx942": {"fp32": 163.4e12 * 0.55, "bf16": 1307.4e12 * 0.40, "hbm": 5.3e12 * 0.6},
         "gfx950": {"fp32": 157.3e12 * 0.55, "bf16": 2516.6e12 * 0.40, "hbm": 8.0e12 * 0.6}}


def read_config(path):
    """The flat keys and the model: block of a train.py YAML config (no YAML library here)."""
    cfg, block = {}, None
    for raw in open(path):
        line = raw.split("#", 1)[0].rstrip()
        if not line.strip() or ":" not in line:
            continue
        key, val = line.split(":", 1)
        indented = line.startswith(" ")
        key, val = key.strip(), val.strip()
        if not indented:
            block = key if val == "" else None
            if val:
                cfg[key] = val
        elif block == "model":
            cfg["model." + key] = val
    return cfg


def as_bool(v):
    return str(v).lower() in ("true", "1", "yes")


class Trace:
    def __init__(self, pid, t0_us, dispatches):
        self.ev, self.pid, self.t_cpu, self.t_gpu = [], pid, t0_us, t0_us
        self.corr, self.ext, self.dispatches = 0, 0, dispatches
        self.record = False  # Kineto records the profiled window only; rocprofv3 sees every dispatch

    def add(self, e):
        if self.record:
            self.ev.append(e)

    def cpu(self, name, dur, cat="cpu_op"):
        self.add({"ph": "X", "cat": cat, "name": name, "pid": self.pid, "tid": self.pid, "ts": self.t_cpu,
                        "dur": dur})
        self.t_cpu += dur

    def kernel(self, op, name, dur_us, grid=(304, 1, 1), block=(256, 1, 1)):
        self.ext += 1
        self.corr += 1
        launch = self.t_cpu
        self.add({"ph": "X", "cat": "cpu_op", "name": op, "pid": self.pid, "tid": self.pid, "ts": launch,
                        "dur": 6.0, "args": {"External id": self.ext}})
        self.add({"ph": "X", "cat": "cuda_runtime", "name": "hipLaunchKernel", "pid": self.pid,
                        "tid": self.pid, "ts": launch + 1.0, "dur": 4.0,
                        "args": {"External id": self.ext, "correlation": self.corr, "kernel": name}})
        self.add({"ph": "s", "id": self.corr, "pid": self.pid, "tid": self.pid, "ts": launch + 1.0,
                        "cat": "ac2g", "name": "ac2g"})
        start = max(self.t_gpu, launch + 8.0)
        self.add({"ph": "X", "cat": "kernel", "name": name, "pid": 2, "tid": 0, "ts": start, "dur": dur_us,
                        "args": {"External id": self.ext, "device": 0, "stream": 0, "correlation": self.corr,
                                 "kind": "Dispatch Kernel", "grid": list(grid), "block": list(block)}})
        self.add({"ph": "f", "id": self.corr, "pid": 2, "tid": 0, "ts": start, "cat": "ac2g", "name": "ac2g",
                        "bp": "e"})
        self.t_cpu = launch + 7.0
        self.t_gpu = start + dur_us
        if self.dispatches is not None:
            self.dispatches.write(json.dumps({"name": name, "correlation": self.corr, "start_ns": int(start * 1000),
                                              "end_ns": int((start + dur_us) * 1000), "grid": list(grid),
                                              "block": list(block)}) + "\n")


def step_kernels(cfg, names, rates):
    """One training step as (aten op, kernel name, microseconds), in launch order."""
    fp32 = not (as_bool(cfg.get("bf16")) or as_bool(cfg.get("fp16")))
    prec = "fp32" if fp32 else "bf16"
    h = int(cfg.get("model.hidden_size", 1024))
    layers = int(cfg.get("model.num_hidden_layers", 8))
    heads = int(cfg.get("model.num_attention_heads", 16))
    inter = int(cfg.get("model.intermediate_size", 2816))
    vocab = int(cfg.get("model.vocab_size", 32000))
    b = int(cfg.get("per_device_train_batch_size", 8))
    s = int(cfg.get("max_seq_length", 1024))
    tokens = b * s
    attn = cfg.get("attn_implementation", "eager")
    eb = 4 if fp32 else 2  # bytes per activation element
    n = names["names"]

    def nm(role, i=0):
        lst = n.get(role + "_" + prec) or n.get(role + "_fp32") or n.get(role)
        return lst[i % len(lst)]

    def gemm(m, k, nn, i):
        return ("aten::mm", n["gemm_" + prec][i % len(n["gemm_" + prec])], 1e6 * 2.0 * m * k * nn / rates[prec])

    def ew(role, elems, passes=3):
        return ("aten::" + role, nm(role), max(2.0, 1e6 * elems * eb * passes / rates["hbm"]))

    fwd, bwd = [], []
    for layer in range(layers):
        blk = [ew("pow", tokens * h), ew("mean", tokens * h, 1), ew("rsqrt", tokens), ew("mul", tokens * h),
               gemm(tokens, h, 3 * h, 0)]
        if attn == "eager":
            sc = b * heads * s * s
            blk += [("aten::bmm", n["gemm_" + prec][1 % len(n["gemm_" + prec])],
                     1e6 * 2.0 * b * heads * s * s * (h // heads) / rates[prec]),
                    ew("mul", sc, 2), ("aten::_softmax", nm("softmax_fwd"), 1e6 * sc * 4 * 2 / rates["hbm"]),
                    ("aten::bmm", n["gemm_" + prec][0], 1e6 * 2.0 * b * heads * s * s * (h // heads) / rates[prec])]
        elif attn in ("flash_attention_2", "flash"):
            blk.append(("aten::_flash_attention_forward",
                        "void ck_tile::kentry<256, 1, ck_tile::FmhaFwdKernel<ck_tile::BlockFmhaPipelineQRKSVSAsync>>",
                        1e6 * 4.0 * b * heads * s * s * (h // heads) / rates["bf16"] / 0.6))
        else:  # sdpa: PyTorch's ROCm flash backend is AOTriton (ROCm/aotriton: attn_fwd, bwd_kernel_dk_dv, bwd_kernel_dq)
            blk.append(("aten::_scaled_dot_product_flash_attention", "attn_fwd",
                        1e6 * 4.0 * b * heads * s * s * (h // heads) / rates["bf16"] / 0.5))
        blk += [gemm(tokens, h, h, 2), ew("add", tokens * h), ew("pow", tokens * h), ew("mean", tokens * h, 1),
                gemm(tokens, h, 2 * inter, 3), ew("silu", tokens * inter), ew("mul", tokens * inter),
                gemm(tokens, inter, h, 0), ew("add", tokens * h)]
        fwd += blk
        # backward: two GEMMs per forward GEMM (data and weight gradients), the elementwise ops again
        for op, name, us in reversed(blk):
            if name.startswith("Cijk_"):
                bwd += [(op, name, us), (op, name, us)]
            elif name == "attn_fwd":
                bwd += [(op.replace("forward", "backward"), "bwd_preprocess", 20.0),
                        (op, "bwd_kernel_dk_dv", us * 1.5), (op, "bwd_kernel_dq", us)]
            elif "FmhaFwdKernel" in name:
                bwd.append((op, name.replace("FmhaFwdKernel", "FmhaBwdDQDKDVKernel"), us * 2.5))
            elif "softmax" in name:
                bwd.append(("aten::_softmax_backward_data", nm("softmax_bwd"), us))
            else:
                bwd.append((op, nm("silu_bwd") if "silu" in op else name, us))
    head = [gemm(tokens, h, vocab, 1), ("aten::_log_softmax", nm("log_softmax"), 1e6 * tokens * vocab * 4 * 2 / rates["hbm"])]
    fwd += head
    bwd = [(op, name, us) for op, name, us in reversed(head)] + [gemm(tokens, vocab, h, 0), gemm(tokens, vocab, h, 1)] + bwd
    params = layers * (4 * h * h + 3 * h * inter) + vocab * h
    opt = []
    fused = cfg.get("optim", "") in ("adamw_torch_fused",)
    opt_kernels = n["optimizer_bf16"] if fused else [nm("mul"), nm("add"), nm("pow"), nm("mul"), nm("add")]
    for k in opt_kernels:
        opt.append(("aten::_foreach_" + ("fused_adamw" if fused else "op"), k,
                    1e6 * params * 4 * (12 if fused else 3) / rates["hbm"] / (1 if fused else 0.7)))
    return fwd, bwd, opt, tokens


def main():
    args = sys.argv[1:]
    config = args[0] if args and not args[0].startswith("--") else ""
    steps = int(args[args.index("--steps") + 1]) if "--steps" in args else 3
    warmup = int(args[args.index("--warmup") + 1]) if "--warmup" in args else 1
    result = args[args.index("--result") + 1] if "--result" in args else os.environ.get("GOBLIN_RESULT")
    m = simhost.manifest()
    g = m["gpu"]
    rates = RATES[g["gfx"]]
    cfg = read_config(config) if config else {}
    with open(os.path.join(simhost.REPO, "tests/fixtures/sim_rocm/amd_kernel_names.json")) as f:
        names = json.load(f)
    fwd, bwd, opt, tokens = step_kernels(cfg, names, rates)
    workers = int(cfg.get("dataloader_num_workers", 0))
    # num_workers 0: the batch (tokenisation-like CPU work, ~2 ms a sample) is built on the training
    # thread while the GPU idles; with workers it was prefetched and next() only hands it over.
    data_us = 2000.0 * int(cfg.get("per_device_train_batch_size", 8)) if workers == 0 else 150.0
    gpu_us = sum(us for _, _, us in fwd + bwd + opt)
    launches = len(fwd) + len(bwd) + len(opt)
    step_us = data_us + max(gpu_us, launches * 7.0) + 400.0
    scale = float(os.environ.get("GOBLIN_SIM_TIME_SCALE", "0.1"))
    exact = os.environ.get("GOBLIN_STANDIN_EXACT") == "1"

    profiling = os.environ.get("GOBLIN_PROFILE") == "1" and os.environ.get("GOBLIN_PROFILE_OUT")
    chan = os.environ.get("GOBLIN_SIM_ROCPROF_DISPATCHES")
    dispatches = open(chan, "a") if chan else None
    pid = os.getpid()
    # Kineto on ROCm stamps events in microseconds of the HIP/roctracer clock; rocprofv3 in ns of
    # CLOCK_BOOTTIME. One clock for both here, so their kernels line up.
    t0 = time.clock_gettime_ns(time.CLOCK_BOOTTIME) / 1000.0
    tr = Trace(pid, t0, dispatches)
    wait = int(os.environ.get("GOBLIN_PROFILE_WAIT", warmup))
    active = int(os.environ.get("GOBLIN_PROFILE_ACTIVE", steps))
    times = []
    for i in range(warmup + steps):
        t = time.perf_counter()
        time.sleep(step_us * 1e-6 * scale)
        took = step_us * 1e-6 if exact else (time.perf_counter() - t) / scale
        if i >= warmup:
            times.append(took)
        if not profiling and dispatches is None:
            continue
        tr.record = bool(profiling) and wait <= i < wait + active
        start = tr.t_cpu
        tr.cpu("enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", data_us, "user_annotation")
        tr.t_gpu = max(tr.t_gpu, tr.t_cpu)
        for op, name, us in fwd + bwd:
            tr.kernel(op, name, us)
        opt_start = tr.t_cpu
        for op, name, us in opt:
            tr.kernel(op, name, us)
        tr.t_cpu = max(tr.t_cpu, tr.t_gpu)  # optimizer.step() ends in a synchronising .item()
        tr.add({"ph": "X", "cat": "user_annotation", "name": "Optimizer.step#AdamW.step", "pid": pid, "tid": pid,
                "ts": opt_start, "dur": tr.t_cpu - opt_start})
        # The step lasts what this process measured (a late wake-up is host time at the step's end),
        # so the trace's steps and the reported step time agree.
        tr.t_cpu = max(tr.t_cpu, start + took * 1e6)
        tr.add({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#%d" % (i + 1), "pid": pid, "tid": pid,
                "ts": start, "dur": tr.t_cpu - start})
    if dispatches:
        dispatches.close()
    st = sum(times) / len(times)
    tps = tokens / st
    if profiling:
        out = os.environ["GOBLIN_PROFILE_OUT"]
        meta = [{"name": "process_name", "ph": "M", "pid": pid, "tid": 0, "args": {"name": "python3"}},
                {"name": "process_name", "ph": "M", "pid": 2, "tid": 0, "args": {"name": "GPU 0"}}]
        doc = {"schemaVersion": 1,
               "deviceProperties": [{"id": 0, "name": g["kineto_device_name"], "totalGlobalMem": g["kineto_total_global_mem"],
                                     "computeMajor": g["compute_major"], "computeMinor": g["compute_minor"],
                                     "maxThreadsPerBlock": 1024, "maxThreadsPerMultiprocessor": 2048,
                                     "regsPerBlock": 131072, "warpSize": 64, "sharedMemPerBlock": 65536,
                                     "numSms": g["compute_units"], "maxSharedMemoryPerMultiProcessor": 65536}],
               "roctracer_version": 4.1, "hip_runtime_version": m["hip_runtime_version"],
               "hip_driver_version": m["hip_runtime_version"], "record_shapes": 0,
               "tokens_per_sec": tps, "step_time_seconds": st, "displayTimeUnit": "ms",
               "baseTimeNanoseconds": time.time_ns() - time.clock_gettime_ns(time.CLOCK_BOOTTIME),
               "traceEvents": meta + tr.ev, "traceName": os.path.join(out, "trace.json.gz")}
        with gzip.open(os.path.join(out, "trace.json.gz"), "wt") as f:
            json.dump(doc, f)
        with open(os.path.join(out, "hook.json"), "w") as f:
            json.dump({"state": "done", "steps_seen": warmup + steps, "step_time_seconds": st, "tokens_per_sec": tps,
                       "torch": "2.9.0+rocm7.0.2"}, f)
    if result:
        with open(result, "w") as f:
            json.dump({"tokens_per_sec": tps, "step_time_seconds": st, "step_times": times, "tokens_per_step": tokens,
                       "steps_measured": steps, "warmup_steps": warmup,
                       "env": {"torch": "2.9.0+rocm7.0.2", "cuda": None, "hip": m["rocm_version"],
                               "gpu": g["market_name"]}}, f)
    print(json.dumps({"step_time_seconds": st, "simulated_gpu_ms": round(gpu_us / 1000, 2)}))


if __name__ == "__main__":
    main()
