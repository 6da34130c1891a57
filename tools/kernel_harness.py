#!/usr/bin/env python3
"""GPU side of `goblin kernel`: imports a workspace's kernel.py and checks, times or profiles it.

The kernel file's contract (docs/kernel.md):
  make_inputs(**shape) -> tuple of tensors   inputs, built on the GPU
  kernel(*inputs)      -> tensor (or tuple)  the kernel under optimisation
  reference(*inputs)   -> tensor (or tuple)  the trusted result (e.g. torch in fp32)
  flops(**shape), bytes_moved(**shape)       or PROBLEM = {"op": "softmax", ...} (data/kernel/problems.yaml)
  baseline(*inputs)    optional: a library version (torch.matmul) timed in the same run

Modes:
  inspect  no torch needed: parses the file (ast), checks the contract, evaluates flops/bytes_moved
           in isolation and reads PROBLEM; prints one JSON object. goblin runs it at `kernel init`.
  bench    correctness (max relative error vs --rtol) then timing: triton.testing.do_bench where
           Triton is installed (it clears L2 between reps), else CUDA events with an L2 flush
           (a 256 MiB buffer write) between reps. Writes the raw samples as JSON; goblin computes
           the median, its bootstrap interval and the % of target.
  profile  warms up (Triton compiles and autotunes outside the range), then runs the kernel
           --launches times inside the NVTX range "goblin_kernel" so that ncu --nvtx-include
           profiles only those launches.
"""
import argparse
import ast
import importlib.util
import json
import math
import os
import sys
import time

CONTRACT = ("make_inputs", "kernel", "reference")


def inspect_file(path, shape):
    src = open(path, encoding="utf-8").read()
    try:
        tree = ast.parse(src, filename=path)
    except SyntaxError as e:
        return {"ok": False, "error": f"{path}: line {e.lineno}: syntax error: {e.msg}", "line": e.lineno}
    funcs = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
    problem, problem_line = None, None
    for n in tree.body:
        if isinstance(n, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "PROBLEM" for t in n.targets):
            problem_line = n.lineno
            try:
                problem = ast.literal_eval(n.value)
            except Exception:
                return {"ok": False, "line": n.lineno,
                        "error": f"{path}: line {n.lineno}: PROBLEM must be a literal dict, e.g. "
                                 "PROBLEM = {\"op\": \"softmax\"}"}
    missing = [f for f in CONTRACT if f not in funcs]
    out = {"ok": not missing, "functions": sorted(funcs), "missing": missing, "problem": problem,
           "problem_line": problem_line, "baseline": "baseline" in funcs}
    if missing:
        out["error"] = (f"{path}: missing {', '.join(missing)} — a kernel file defines make_inputs(**shape), "
                        "kernel(*inputs) and reference(*inputs) (docs/kernel.md)")
        return out
    # flops/bytes_moved are plain arithmetic on the shape: run just those definitions.
    for name in ("flops", "bytes_moved"):
        if name in funcs:
            mod = ast.Module(body=[funcs[name]], type_ignores=[])
            ns = {"math": math}
            try:
                exec(compile(mod, path, "exec"), ns)
                out[name] = float(ns[name](**shape))
            except Exception as e:  # noqa: BLE001 - reported to the user
                out["ok"] = False
                out["error"] = f"{path}: line {funcs[name].lineno}: {name}(**shape) failed: {e!r}"
                return out
    if ("flops" not in out or "bytes_moved" not in out) and not (isinstance(problem, dict) and "op" in problem):
        out["ok"] = False
        out["error"] = (f"{path}: define flops(**shape) and bytes_moved(**shape), or PROBLEM = "
                        "{\"op\": ...} naming a known op (matmul, softmax, rmsnorm, layernorm, elementwise, "
                        "reduction, attention)")
    return out


def load_module(path):
    spec = importlib.util.spec_from_file_location("goblin_kernel_under_test", path)
    mod = importlib.util.module_from_spec(spec)
    sys.path.insert(0, os.path.dirname(os.path.abspath(path)))
    spec.loader.exec_module(mod)
    return mod


def as_tuple(x):
    return tuple(x) if isinstance(x, (tuple, list)) else (x,)


def max_rel_err(out, ref):
    """Largest per-element relative error. Each element is divided by max(|ref|, 1e-3 * max|ref|) so
    elements near zero (where bf16 rounding is all error) do not divide by ~0."""
    import torch
    worst, abs_worst = 0.0, 0.0
    for o, r in zip(as_tuple(out), as_tuple(ref)):
        o = o.float()
        r = r.float()
        if o.shape != r.shape:
            raise ValueError(f"kernel output shape {tuple(o.shape)} != reference shape {tuple(r.shape)}")
        if not torch.isfinite(o).all():
            return float("inf"), float("inf")
        d = (o - r).abs()
        floor = max(r.abs().max().item() * 1e-3, 1e-30)
        worst = max(worst, (d / r.abs().clamp_min(floor)).max().item())
        abs_worst = max(abs_worst, d.max().item())
    return worst, abs_worst


def time_fn(fn, warmup_ms, rep_ms):
    import torch
    try:
        import triton.testing
        try:
            ms = triton.testing.do_bench(fn, warmup=warmup_ms, rep=rep_ms, return_mode="all")
        except TypeError:  # older Triton without return_mode="all"
            ms = triton.testing.do_bench(fn, warmup=warmup_ms, rep=rep_ms, quantiles=None)
        return (list(ms) if isinstance(ms, (list, tuple)) else [float(ms)]), "triton.testing.do_bench"
    except ImportError:
        pass
    flush = torch.empty(256 * 1024 * 1024, dtype=torch.int8, device="cuda")
    fn()
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    fn()
    torch.cuda.synchronize()
    est = max((time.perf_counter() - t0) * 1e3, 1e-3)
    for _ in range(max(1, int(warmup_ms / est))):
        fn()
    n = max(10, min(1000, int(rep_ms / est)))
    starts = [torch.cuda.Event(enable_timing=True) for _ in range(n)]
    ends = [torch.cuda.Event(enable_timing=True) for _ in range(n)]
    for i in range(n):
        flush.zero_()  # evict the inputs from L2 so every rep reads from DRAM
        starts[i].record()
        fn()
        ends[i].record()
    torch.cuda.synchronize()
    return [s.elapsed_time(e) for s, e in zip(starts, ends)], "cuda_events_l2_flush"


def device_info():
    import torch
    p = torch.cuda.get_device_properties(0)
    info = {"name": p.name, "sm_count": p.multi_processor_count, "torch": torch.__version__,
            "cuda": torch.version.cuda, "hip": getattr(torch.version, "hip", None)}
    try:
        import triton
        info["triton"] = triton.__version__
    except ImportError:
        info["triton"] = None
    return info


def bench(args, shape):
    import torch
    mod = load_module(args.kernel)
    missing = [f for f in CONTRACT if not hasattr(mod, f)]
    if missing:
        raise SystemExit(f"{args.kernel}: missing {', '.join(missing)}")
    torch.manual_seed(0)
    inputs = as_tuple(mod.make_inputs(**shape))
    out = mod.kernel(*inputs)
    ref = mod.reference(*inputs)
    torch.cuda.synchronize()
    err, abs_err = max_rel_err(out, ref)
    del out, ref
    res = {"harness": "goblin kernel_harness 1", "mode": "bench", "kernel_file": os.path.abspath(args.kernel),
           "shape": shape, "device": device_info(),
           "correctness": {"passed": bool(err <= args.rtol), "max_rel_err": err if math.isfinite(err) else None,
                           "max_abs_err": abs_err if math.isfinite(abs_err) else None, "threshold": args.rtol}}
    for name in ("flops", "bytes_moved"):
        if hasattr(mod, name):
            res[name] = float(getattr(mod, name)(**shape))
    if hasattr(mod, "PROBLEM"):
        res["problem"] = mod.PROBLEM
    if res["correctness"]["passed"] or args.time_anyway:
        res["samples_ms"], res["timer"] = time_fn(lambda: mod.kernel(*inputs), args.warmup_ms, args.rep_ms)
        if hasattr(mod, "baseline"):
            ms, _ = time_fn(lambda: mod.baseline(*inputs), args.warmup_ms, args.rep_ms)
            res["baseline"] = {"name": getattr(mod, "BASELINE_NAME", "baseline"), "samples_ms": ms}
    return res


def profile(args, shape):
    import torch
    mod = load_module(args.kernel)
    inputs = as_tuple(mod.make_inputs(**shape))
    for _ in range(3):  # compile + autotune outside the profiled range
        mod.kernel(*inputs)
    torch.cuda.synchronize()
    torch.cuda.nvtx.range_push("goblin_kernel")
    for _ in range(args.launches):
        mod.kernel(*inputs)
    torch.cuda.synchronize()
    torch.cuda.nvtx.range_pop()
    return {"harness": "goblin kernel_harness 1", "mode": "profile", "launches": args.launches}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("mode", choices=["inspect", "bench", "profile"])
    ap.add_argument("--kernel", required=True)
    ap.add_argument("--shape", default="{}", help='JSON object, e.g. {"M": 8192, "N": 8192}')
    ap.add_argument("--rtol", type=float, default=1e-2)
    ap.add_argument("--warmup-ms", type=float, default=25)
    ap.add_argument("--rep-ms", type=float, default=200)
    ap.add_argument("--launches", type=int, default=1)
    ap.add_argument("--time-anyway", action="store_true", help="time even when the result is wrong")
    ap.add_argument("--out", help="write the JSON here (default stdout)")
    args = ap.parse_args()
    shape = json.loads(args.shape)
    if args.mode == "inspect":
        res = inspect_file(args.kernel, shape)
    elif args.mode == "bench":
        res = bench(args, shape)
    else:
        res = profile(args, shape)
    text = json.dumps(res)
    if args.out:
        with open(args.out, "w", encoding="utf-8") as f:
            f.write(text + "\n")
    elif args.mode == "profile":
        print(text, file=sys.stderr)  # stdout is ncu's CSV
    else:
        print(text)
    return 0 if res.get("ok", True) else 3


if __name__ == "__main__":
    sys.exit(main())
