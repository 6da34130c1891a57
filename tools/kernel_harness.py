#!/usr/bin/env python3
"""GPU side of `goblin kernel`: imports a workspace's kernel.py and checks, times or profiles it.

The kernel file's contract (docs/kernel.md):
  make_inputs(**shape) -> tuple of tensors   inputs, built on the GPU (random: the harness seeds it)
  kernel(*inputs)      -> tensor (or tuple)  the kernel under optimisation
  reference(*inputs)   -> tensor (or tuple)  the trusted result (e.g. torch in fp32)
  flops(**shape), bytes_moved(**shape)       or PROBLEM = {"op": "softmax", ...} (data/kernel/problems.yaml)
  baseline(*inputs)    optional: a library version (torch.matmul) timed in the same run
  INPLACE = True       optional: the kernel writes its result into its inputs (else that is refused)

Modes:
  inspect  no torch needed: parses the file (ast), checks the contract, evaluates flops/bytes_moved
           in isolation and reads PROBLEM; prints one JSON object. goblin runs it at `kernel init`.
  bench    correctness, then timing that the kernel file cannot game (docs/kernel.md "Honest
           measurement"): every timed call gets inputs it has not seen (a rotation over input sets
           that together exceed L2, regenerated from new seeds each round) and every output is
           checked; CUDA events with an L2 flush between reps as triton.testing.do_bench does;
           work left on other streams after the call returns and a wall-clock time far above the
           event time are refused; the timing functions are bound before the kernel file is
           imported and checked after; held-out shapes and seeds are checked after timing.
           Writes the raw samples and the integrity findings as JSON; goblin computes the median,
           its bootstrap interval, the physical limits and the % of target.
  check    the held-out shapes and seeds alone (correctness, aliasing, NaN/Inf).
  profile  warms up (Triton compiles and autotunes outside the range), then runs the kernel
           --launches times inside the NVTX range "goblin_kernel" so that ncu --nvtx-include
           profiles only those launches.
"""
import argparse
import ast
import faulthandler
import gc
import hashlib
import importlib.util
import inspect
import json
import math
import os
import sys
import time

# The timing loop and the synchronisation checks, beside this file (tools/kernel_timing.py). Bound
# here, before any kernel file is imported, and held in the trusted slots like this file's own.
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kernel_static  # noqa: E402
import kernel_timing  # noqa: E402
from kernel_timing import (L2_FALLBACK_BYTES, Gate, InputSets, as_tuple, is_tensor, judge_gated,  # noqa: E402
                           judge_pending, judge_wall, median, pool_streams, probe_gated, probe_pending,
                           sets_needed, tensor_bytes, time_rotated, wall_clock)

CONTRACT = ("make_inputs", "kernel", "reference")
HARNESS = "goblin kernel_harness 3"
NO_TORCH_EXIT = 7
CURRENT = {}  # the bench result being built: written as the verdict when the kernel kills the run


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
    # `kernel = something` defines the name too (the static checks judge what it is bound to).
    assigned = {t.id for n in tree.body if isinstance(n, ast.Assign) for t in n.targets if isinstance(t, ast.Name)}
    missing = [f for f in CONTRACT if f not in funcs and not (f == "kernel" and f in assigned)]
    out = {"ok": not missing, "functions": sorted(funcs), "missing": missing, "problem": problem,
           "problem_line": problem_line, "baseline": "baseline" in funcs,
           "static": kernel_static.check_source(src, path)}
    if missing:
        out["error"] = (f"{path}: missing {', '.join(missing)} — a kernel file defines make_inputs(**shape), "
                        "kernel(*inputs) and reference(*inputs) (docs/kernel.md)")
        return out
    # --shape is optional: make_inputs' numeric keyword defaults are the shape it does not give.
    defaults = literal_defaults(funcs["make_inputs"])
    out["make_inputs_defaults"] = defaults
    shape = {**defaults, **shape}
    # flops/bytes_moved are plain arithmetic on the shape: run just those definitions, with the
    # dimensions they name.
    for name in ("flops", "bytes_moved"):
        if name in funcs:
            mod = ast.Module(body=[funcs[name]], type_ignores=[])
            ns = {"math": math}
            fa = funcs[name].args
            wanted = {a.arg for a in fa.args + fa.kwonlyargs}
            given = shape if fa.kwarg else {k: v for k, v in shape.items() if k in wanted}
            try:
                exec(compile(mod, path, "exec"), ns)
                out[name] = float(ns[name](**given))
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


def literal_defaults(fn):
    """{name: default} of a function's int/float literal keyword defaults (ast, nothing run)."""
    a = fn.args
    pos = a.posonlyargs + a.args
    pairs = list(zip(pos[len(pos) - len(a.defaults):], a.defaults)) + \
        [(k, d) for k, d in zip(a.kwonlyargs, a.kw_defaults) if d is not None]
    out = {}
    for arg, d in pairs:
        if isinstance(d, ast.Constant) and type(d.value) in (int, float):
            out[arg.arg] = d.value
    return out


def load_module(path):
    spec = importlib.util.spec_from_file_location("goblin_kernel_under_test", path)
    mod = importlib.util.module_from_spec(spec)
    sys.path.insert(0, os.path.dirname(os.path.abspath(path)))
    spec.loader.exec_module(mod)
    return mod


def git_blob_id(path):
    """The file's git blob id (sha1 of "blob <size>\\0" + content): `goblin kernel record` compares it
    with `git hash-object kernel.py`, so the version recorded is the version benched."""
    with open(path, "rb") as f:
        data = f.read()
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


# ---------------------------------------------------------------------------------------------
# The timer cannot be tampered with: the functions the measurement relies on are bound before the
# kernel file is imported, used through these bindings only, and their identity is checked after
# the import and after timing (a kernel file that replaces time.perf_counter, torch.cuda.Event's
# methods or this harness's own functions is refused, naming what it replaced).

class Trusted:
    def __init__(self, slots):
        """slots: (label, owner, attribute) triples, read now."""
        self.slots = [(label, owner, attr, getattr(owner, attr)) for label, owner, attr in slots]
        self.by_label = {s[0]: s[3] for s in self.slots}

    def __getitem__(self, label):
        return self.by_label[label]

    def tampered(self):
        return [label for label, owner, attr, obj in self.slots if getattr(owner, attr, None) is not obj]


def harness_callables():
    """Every function and class of this harness and of kernel_timing, by the name this harness
    calls it (a kernel file can reach them as __main__.NAME)."""
    me = sys.modules[__name__]
    return sorted(n for n, v in vars(me).items() if callable(v) and not n.startswith("__")
                  and getattr(v, "__module__", None) in (me.__name__, kernel_timing.__name__))


def timing_callables():
    """kernel_timing's own functions and classes, by the name they call each other (a kernel file
    can reach them as sys.modules["kernel_timing"].NAME)."""
    return sorted(n for n, v in vars(kernel_timing).items() if callable(v) and not n.startswith("__")
                  and getattr(v, "__module__", None) == kernel_timing.__name__)


def trusted_slots(torch):
    me = sys.modules[__name__]
    ev = torch.cuda.Event
    slots = [("time.perf_counter", time, "perf_counter"), ("time.perf_counter_ns", time, "perf_counter_ns"),
             ("time.time", time, "time"), ("torch.cuda.synchronize", torch.cuda, "synchronize"),
             ("torch.cuda.Event", torch.cuda, "Event"), ("torch.cuda.Event.record", ev, "record"),
             ("torch.cuda.Event.elapsed_time", ev, "elapsed_time"), ("torch.cuda.Event.synchronize", ev, "synchronize"),
             ("torch.cuda.Stream", torch.cuda, "Stream"), ("torch.cuda.Stream.query", torch.cuda.Stream, "query"),
             ("torch.Tensor.zero_", torch.Tensor, "zero_"), ("torch.Tensor.copy_", torch.Tensor, "copy_"),
             ("torch.manual_seed", torch, "manual_seed"), ("json.dumps", json, "dumps"),
             ("torch.cuda.stream", torch.cuda, "stream"), ("torch.cuda.Event.query", ev, "query"),
             ("torch.cuda.Stream.wait_event", torch.cuda.Stream, "wait_event")]
    if hasattr(torch.cuda, "_sleep"):  # the gate's spin kernel (kernel_timing.Gate)
        slots.append(("torch.cuda._sleep", torch.cuda, "_sleep"))
    slots += [("kernel_harness." + f, me, f) for f in harness_callables()]
    slots += [("kernel_timing." + f, kernel_timing, f) for f in timing_callables()]
    slots += [("kernel_harness.Trusted.tampered", Trusted, "tampered")]
    return slots


class Device:
    """The measurement's view of the GPU, through the trusted bindings only."""

    def __init__(self, t):
        self.t = t
        self.sync = t["torch.cuda.synchronize"]
        self.perf = t["time.perf_counter"]

    def event(self):
        return self.t["torch.cuda.Event"](enable_timing=True)

    def record(self, e):
        self.t["torch.cuda.Event.record"](e)

    def elapsed(self, a, b):
        return self.t["torch.cuda.Event.elapsed_time"](a, b)

    def wait(self, e):
        self.t["torch.cuda.Event.synchronize"](e)


# ---------------------------------------------------------------------------------------------
# Correctness of one output.

def max_rel_err(out, ref):
    """Largest per-element relative error. Each element is divided by max(|ref|, 1e-3 * max|ref|) so
    elements near zero (where bf16 rounding is all error) do not divide by ~0. NaN/Inf → inf."""
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


def storage_span(t):
    s = t.untyped_storage()
    return s.data_ptr(), s.data_ptr() + s.nbytes()


def overlapping_inputs(outs, inputs):
    """Indices (output, input) whose storages overlap: an output that is (a view of) an input."""
    hits = []
    for i, o in enumerate(outs):
        if not is_tensor(o):
            continue
        a0, a1 = storage_span(o)
        for j, x in enumerate(inputs):
            if is_tensor(x):
                b0, b1 = storage_span(x)
                if a0 < b1 and b0 < a1:
                    hits.append((i, j))
    return hits


LAZY_PREFIX = "lazy output"


def lazy_outputs(outs):
    """A message when an output is not a plain tensor: a torch.Tensor subclass (or any object that
    only looks like one) can compute its values when they are compared, not when timed."""
    try:
        import torch
    except ImportError:  # the CPU tests' fake tensors
        return ""
    for i, o in enumerate(outs):
        if type(o) is not torch.Tensor:
            return (f"{LAZY_PREFIX}: output {i} is a {type(o).__module__}.{type(o).__qualname__}, not a plain "
                    "torch.Tensor (a subclass can compute its values lazily, outside the timed region)")
    return ""


def check_output(out, ref, inputs, rtol, inplace):
    """One output against its reference: (ok, max_rel_err, max_abs_err, message)."""
    outs = as_tuple(out)
    lazy = lazy_outputs(outs)
    if lazy:
        return False, None, None, lazy
    if not inplace:
        alias = overlapping_inputs(outs, inputs)
        if alias:
            i, j = alias[0]
            return False, None, None, (f"output {i} shares memory with input {j} (a view of the input): refused "
                                       "unless the file declares INPLACE = True")
    err, abs_err = max_rel_err(out, ref)
    if not math.isfinite(err):
        return False, None, None, "the output contains NaN or Inf"
    if err > rtol:
        return False, err, abs_err, f"max relative error {err:.4g} > {rtol:g}"
    return True, err, abs_err, ""


# ---------------------------------------------------------------------------------------------
# Held-out shapes and seeds, checked after timing (and by `check`).

def shape_with_defaults(mod, shape):
    """--shape over make_inputs' keyword defaults: the dimensions the bench really ran."""
    full = {}
    try:
        for name, p in inspect.signature(mod.make_inputs).parameters.items():
            if p.default is not inspect.Parameter.empty and isinstance(p.default, int):
                full[name] = p.default
    except (TypeError, ValueError):
        pass
    full.update(shape)
    return full


def held_out_shapes(shape):
    """Two smaller shapes whose every integer dimension >= 16 is an odd multiple of 8 (8 * (2m + 1)):
    not a multiple of any tile size >= 16, so the kernel's edge masks are exercised, while rows stay
    16-byte aligned for bf16 (TMA needs that). About 1/4 and 1/16 of each dimension."""
    out = []
    for div in (64, 256):
        s = {}
        for k, v in shape.items():
            s[k] = 8 * (2 * (v // div) + 1) if isinstance(v, int) and not isinstance(v, bool) and v >= 16 else v
        if s != shape and s not in out:
            out.append(s)
    return out


HELD_OUT_SEEDS = (1001, 1002)


def held_out(mod, shape, rtol, inplace):
    import torch
    full = shape_with_defaults(mod, shape)
    cases = [(s, HELD_OUT_SEEDS[0]) for s in held_out_shapes(full)] + [(shape, sd) for sd in HELD_OUT_SEEDS]
    res = []
    for s, seed in cases:
        case = {"shape": s, "seed": seed}
        try:
            torch.manual_seed(seed)
            x = as_tuple(mod.make_inputs(**s))
            ref = mod.reference(*x)
            out = mod.kernel(*x)
            torch.cuda.synchronize()
            ok, err, _, msg = check_output(out, ref, x, rtol, inplace)
            case.update({"passed": ok, "max_rel_err": err, "message": msg})
            del x, ref, out
        except Exception as e:  # noqa: BLE001 - a crash on a held-out shape is a failure to report
            case.update({"passed": False, "max_rel_err": None, "message": f"raised {type(e).__name__}: {e}"[:400]})
        res.append(case)
        torch.cuda.empty_cache()
    return {"passed": all(c["passed"] for c in res), "cases": res}


# ---------------------------------------------------------------------------------------------

def device_info():
    import torch
    p = torch.cuda.get_device_properties(0)
    info = {"name": p.name, "sm_count": p.multi_processor_count, "torch": torch.__version__,
            "cuda": torch.version.cuda, "hip": getattr(torch.version, "hip", None),
            "l2_bytes": int(getattr(p, "L2_cache_size", 0) or 0)}
    try:
        import triton
        info["triton"] = triton.__version__
    except ImportError:
        info["triton"] = None
    return info


def problem(check, message):
    return {"check": check, "message": message}


MIB = 1024 * 1024


def checkpoint(res, path, dumps):
    """The result so far, written where goblin reads it: a kernel that kills the process (a
    segfault) or hangs past goblin's deadline still leaves the stage it reached and what was found."""
    if not path:
        return
    tmp = path + ".part"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(dumps(res) + "\n")
    os.replace(tmp, path)


def static_refusal(res, path, skip, threshold):
    """Static findings (tools/kernel_static.py) are refused before torch is imported."""
    found = kernel_static.check_file(path)
    res["static"] = found
    if not found or skip:
        return False
    res["integrity"]["problems"] += [problem(f["check"], f["message"] + " (static check: the file was not run)")
                                     for f in found]
    res["correctness"] = {"passed": False, "max_rel_err": None, "max_abs_err": None, "threshold": threshold,
                          "message": "not run: the static checks refused the file"}
    return True


def os_threads():
    try:
        return len(os.listdir("/proc/self/task"))
    except OSError:
        import threading
        return threading.active_count()


def live_streams(torch):
    return sum(1 for o in gc.get_objects() if isinstance(o, torch.cuda.Stream))


def leak_problem(before, after, calls):
    """Threads or stream objects that outlived the kernel calls that made them."""
    dt, ds = after["threads"] - before["threads"], after["streams"] - before["streams"]
    if dt > 0 or ds > 0:
        return problem("stream_leak", f"after {calls} kernel calls {dt} more OS thread(s) and {ds} more live CUDA "
                                      f"stream object(s) than before the first call ({before} -> {after}): the kernel "
                                      "leaves work or resources running beside the timed stream")
    return None


def growth_problem(mem, out_bytes, retained_first):
    """A kernel that keeps memory after its outputs are dropped (a result cache): bytes held after
    the first call, and growth across the timed rounds (each round calls the kernel on new inputs)."""
    floor = max(MIB, 0.5 * out_bytes)
    grew = (mem[-1] - mem[0]) if len(mem) >= 2 else 0
    if retained_first >= floor or grew >= floor:
        return problem("memory_growth", f"GPU memory held by the kernel after its outputs were freed: "
                                        f"{retained_first / MIB:.1f} MiB after the first call, {grew / MIB:.1f} MiB more "
                                        f"over {len(mem)} rounds of new inputs (one output is {out_bytes / MIB:.1f} MiB): "
                                        "results kept across calls (a cache) instead of computed")
    return None


class MemoryGrowthAbort(Exception):
    pass


def poison(torch, nbytes):
    """Fill the memory the next allocation of nbytes will get with 0xFF (NaN in every float
    format): the cached free blocks go back to the driver, one block is allocated, filled and freed,
    so the kernel's torch.empty* receives it. A kernel that returns memory it did not write returns
    NaN instead of an old result that happens to be right."""
    torch.cuda.synchronize()
    torch.cuda.empty_cache()
    b = torch.empty(max(int(nbytes), 1), dtype=torch.uint8, device="cuda")
    b.fill_(255)
    del b


def poison_fraction(torch, out):
    """Fraction of the outputs' bytes that still hold poison()'s 0xFF."""
    n = hit = 0
    for o in as_tuple(out):
        if is_tensor(o) and type(o) is torch.Tensor:
            b = o.detach().contiguous().view(-1).view(torch.uint8)
            n += b.numel()
            hit += int((b == 255).sum().item())
    return hit / n if n else 0.0


def out_nbytes(out):
    return sum(o.numel() * o.element_size() for o in as_tuple(out) if is_tensor(o))


def narrower_output(torch, out, inputs):
    """A message when a floating output has fewer bytes per element than the narrowest floating
    input: the kernel returned lower precision than it was given."""
    fin = [x.element_size() for x in inputs if is_tensor(x) and x.is_floating_point()]
    for i, o in enumerate(as_tuple(out)):
        if is_tensor(o) and o.is_floating_point() and fin and o.element_size() < min(fin):
            return (f"output {i} is {o.dtype} ({o.element_size()} bytes per element) for inputs of "
                    f"{min(fin)} bytes per element: a precision downgrade")
    return ""


def reverify(dev, torch, kernel, sets, rtol, inplace, nbytes, calls=3):
    """Every claimed time again on fresh, poisoned output memory: new input values, the allocator's
    memory filled with NaN before each call, each output checked, each call timed by events; then
    the last inputs once more (determinism: the second result must also be right)."""
    sets.regenerate()
    ms, fails, outs = [], [], []
    for i in range(calls + 1):
        j = min(i, calls - 1) % sets.k
        x = sets.sets[j]
        poison(torch, nbytes)
        s, e = dev.event(), dev.event()
        dev.record(s)
        o = kernel(*x)
        dev.record(e)
        dev.sync()
        ok, err, _, msg = check_output(o, sets.refs[j], x, rtol, inplace)
        if i < calls:
            ms.append(dev.elapsed(s, e))
        if not ok:
            fails.append({"call": i, "set": j, "max_rel_err": err, "message": msg, "rerun": i == calls})
        outs.append(o if i >= calls - 1 else None)
    same = all(torch.equal(a, b) for a, b in zip(as_tuple(outs[-2]), as_tuple(outs[-1])))
    return {"median_ms": median(ms), "samples_ms": ms, "failures": fails, "bitwise_deterministic": bool(same)}


def bytes_of(torch, outs):
    return [o.reshape(-1).view(torch.uint8) for o in as_tuple(outs) if type(o) is torch.Tensor]


def gated_probe(dev, t, torch, kernel, sets, streams, out_bytes, est_ms):
    """kernel_timing.probe_gated on new inputs and poisoned output memory: an output written from a
    side stream after the call's own stream finished (`untimed_work`), however quickly."""
    try:
        gate = Gate(torch, t, streams)
    except (KeyError, RuntimeError, IndexError) as e:  # no spin kernel on this torch/backend
        return {"error": f"{type(e).__name__}: {e}"[:300]}

    def snapshot(out):
        return [b.clone() for b in bytes_of(torch, out)]

    def same(snap, out):
        now = bytes_of(torch, out)
        return len(snap) == len(now) and all(torch.equal(a, b) for a, b in zip(snap, now))
    return probe_gated(dev, gate, kernel, sets.fresh, snapshot, same, lambda: poison(torch, max(out_bytes, 1)),
                       est_ms)


RETIME_RATIO = 3.0  # a re-timed call may be this much slower than the timed median (+ 20 us)


def reverify_problems(rv, timed_median_ms):
    out = []
    first = [f for f in rv["failures"] if not f["rerun"]]
    rerun = [f for f in rv["failures"] if f["rerun"]]
    if first:
        out.append(problem("poisoned_output", f"with the allocator's free memory filled with NaN before the call, "
                                              f"the kernel's output was wrong ({first[0]['message']}): it returns "
                                              "memory it did not write (an old result) or depends on leftover state"))
    elif rerun:
        out.append(problem("nondeterministic", f"the same inputs run twice gave a wrong second result "
                                               f"({rerun[0]['message']})"))
    if rv["median_ms"] > RETIME_RATIO * timed_median_ms + 0.02:
        out.append(problem("retime_mismatch", f"re-timed on fresh poisoned buffers the call took {rv['median_ms']:.4g} ms "
                                              f"vs {timed_median_ms:.4g} ms in the timed rounds: the claimed time is "
                                              "not reproduced"))
    return out


def bench(args, shape):
    res = CURRENT
    res.update({"harness": HARNESS, "mode": "bench", "kernel_file": os.path.abspath(args.kernel),
                "kernel_blob": git_blob_id(args.kernel), "shape": shape, "stage": "static checks"})
    problems = []
    res["integrity"] = {"passed": False, "problems": problems}
    if static_refusal(res, args.kernel, args.skip_static, args.rtol):
        return res
    try:
        import torch
    except ImportError:  # the machine's fault, not the kernel's: goblin says so (exit 7)
        print("kernel_harness.py: torch is not installed (the bench needs torch and a GPU)", file=sys.stderr)
        raise SystemExit(NO_TORCH_EXIT)
    t = Trusted(trusted_slots(torch))  # bound before the kernel file runs any code
    tampered = t.tampered  # a bound method: replacing Trusted.tampered later does not change it
    dumps = t["json.dumps"]
    save = lambda stage: (res.update(stage=stage), checkpoint(res, args.out, dumps))  # noqa: E731
    dev = Device(t)
    res["device"] = info = device_info()
    save("import of the kernel file")
    mod = load_module(args.kernel)
    changed = tampered()
    if changed:
        problems.append(problem("timer_tampered", "the kernel file replaced " + ", ".join(changed) +
                                " while it was imported: the harness's timing cannot be trusted, nothing is timed"))
        res["correctness"] = {"passed": False, "max_rel_err": None, "max_abs_err": None, "threshold": args.rtol,
                              "message": "not checked: the timer was tampered with"}
        return res
    missing = [f for f in CONTRACT if not hasattr(mod, f)]
    if missing:
        raise SystemExit(f"{args.kernel}: missing {', '.join(missing)}")
    inplace = bool(getattr(mod, "INPLACE", False) or (isinstance(getattr(mod, "PROBLEM", None), dict)
                                                       and mod.PROBLEM.get("inplace")))
    for name in ("flops", "bytes_moved"):
        if hasattr(mod, name):
            res[name] = float(getattr(mod, name)(**shape))
    if hasattr(mod, "PROBLEM"):
        res["problem"] = mod.PROBLEM

    # Correctness on a first input set (seed 0); the reference runs first, on its own copy, and the
    # inputs must come back unchanged unless the file declares INPLACE.
    save("correctness")
    t["torch.manual_seed"](0)
    inputs = as_tuple(mod.make_inputs(**shape))
    saved = [x.clone() if is_tensor(x) else x for x in inputs]
    ref = mod.reference(*saved)
    dev.sync()
    # The allocator's free memory is poisoned (NaN) before the first call, and what the kernel
    # keeps allocated after its output is dropped is measured (a result cache holds it).
    poison(torch, out_nbytes(ref))
    mem0 = torch.cuda.memory_allocated()
    out = mod.kernel(*inputs)
    dev.sync()
    ok, err, abs_err, msg = check_output(out, ref, inputs, args.rtol, inplace)
    if msg.startswith(LAZY_PREFIX):
        problems.append(problem("lazy_output", msg))
    elif not ok and msg == "the output contains NaN or Inf":
        frac = poison_fraction(torch, out)
        msg += f" ({100 * frac:.1f} % of its bytes are the 0xFF poison written into the allocator's free memory)"
        if frac > 0.5:
            problems.append(problem("poisoned_output", f"{100 * frac:.1f} % of the output's bytes are the 0xFF "
                                                       "poison the harness wrote into free memory before the call: "
                                                       "the kernel returned memory it did not write"))
    narrow = "" if msg.startswith(LAZY_PREFIX) else narrower_output(torch, out, inputs)
    if narrow:
        problems.append(problem("precision_downgrade", narrow))
        ok, msg = False, narrow
    out_bytes = out_nbytes(out) if not msg.startswith(LAZY_PREFIX) else 0
    del out
    retained_first = torch.cuda.memory_allocated() - mem0
    leak0 = {"threads": os_threads(), "streams": live_streams(torch)}  # after the first call (compilation)
    if ok and not inplace:
        for j, (x, y) in enumerate(zip(inputs, saved)):
            if is_tensor(x) and not torch.equal(x, y):
                ok, msg = False, f"the kernel wrote into input {j}: refused unless the file declares INPLACE = True"
    res["correctness"] = {"passed": bool(ok), "max_rel_err": err, "max_abs_err": abs_err, "threshold": args.rtol,
                          "message": msg}
    set_bytes = tensor_bytes(inputs)
    del ref, saved
    if not (ok or args.time_anyway):
        res["integrity"]["passed"] = not problems  # nothing timed, nothing else to distrust
        return res
    save("timing")

    # Timing over rotating input sets.
    l2 = args.l2_bytes or info["l2_bytes"] or L2_FALLBACK_BYTES
    k = sets_needed(set_bytes, l2)
    del inputs
    sets = InputSets(mod, shape, k, 1000 * 1000, t["torch.manual_seed"])
    flush_buf = torch.empty(256 * 1024 * 1024, dtype=torch.int8, device="cuda")
    zero_ = t["torch.Tensor.zero_"]
    flush = lambda: zero_(flush_buf)  # noqa: E731 - evicts the inputs from L2 (do_bench: 256 MiB)
    def check(o, r, x, inplace=inplace):
        return check_output(o, r, x, args.rtol, inplace)

    mem = res["integrity"]["memory_allocated"] = []  # in the verdict even if the GPU runs out of memory
    free0 = torch.cuda.mem_get_info()[0]

    def watch():  # after every round, its outputs dropped: a growing cache stops the run early
        mem.append(torch.cuda.memory_allocated())
        if len(mem) >= 3 and mem[-1] - mem[0] > 0.25 * free0:
            raise MemoryGrowthAbort(f"{(mem[-1] - mem[0]) / MIB:.0f} MiB more allocated after {len(mem)} rounds")

    try:
        samples, stats, bad = time_rotated(dev, mod.kernel, sets, args.warmup_ms, args.rep_ms, flush, check, watch)
    except MemoryGrowthAbort as e:
        problems.append(growth_problem(mem, out_bytes, retained_first) or problem("memory_growth", str(e)))
        problems[-1]["message"] += f"; stopped before the GPU ran out of memory ({e})"
        return res
    p = growth_problem(mem, out_bytes, retained_first)
    if p:
        problems.append(p)
    p = leak_problem(leak0, {"threads": os_threads(), "streams": live_streams(torch)},
                     stats["outputs_checked"] + stats.get("heat_calls", 0))
    if p:
        problems.append(p)
    res["samples_ms"], res["timer"] = samples, "cuda_events_rotating_inputs_l2_flush"
    res["integrity"].update({"input_sets": k, "set_bytes": set_bytes, "l2_bytes": l2,
                             "sets_exceed_l2": k * set_bytes > l2, **stats})
    if bad:
        res["correctness"].update({"passed": False, "max_rel_err": bad["max_rel_err"],
                                   "message": f"a timed call returned a wrong result on inputs it had not seen "
                                              f"(round {bad['round']} of warm-up and timing, input set {bad['set']}): {bad['message']}"})
        problems.append(problem("stale_output", res["correctness"]["message"] + " — a kernel that caches its "
                                "results (by pointer, shape or content) returns stale outputs here"))
    streams = pool_streams(torch)
    pend = probe_pending(dev, t, mod.kernel, sets.sets[0], streams)
    res["integrity"]["pending"] = pend
    p = judge_pending(pend["busy_streams"], pend["sync_ms"], pend["idle_sync_ms"])
    if p:
        problems.append(problem("work_after_return", p))
    gp = gated_probe(dev, t, torch, mod.kernel, sets, streams, out_bytes, stats["estimate_ms"])
    res["integrity"]["gate"] = gp
    p = judge_gated(gp.get("runs", []))
    if p:
        problems.append(problem("untimed_work", p))
    wall = wall_clock(dev, mod.kernel, sets, stats["estimate_ms"])
    wall["event_median_ms"] = median(samples)
    res["integrity"]["wall"] = wall
    p = judge_wall(wall["event_median_ms"], wall["wall_ms"], wall["launch_ms"])
    if p:
        problems.append(problem("wall_clock", p))
    save("re-verification")
    rv = reverify(dev, torch, mod.kernel, sets, args.rtol, inplace, max(out_bytes, 1))
    res["integrity"]["reverify"] = rv
    problems += reverify_problems(rv, median(samples))
    save("baseline")
    if hasattr(mod, "baseline"):
        ms, _, _ = time_rotated(dev, mod.baseline, sets, args.warmup_ms, args.rep_ms, flush,
                                lambda o, r, x: check(o, r, x, True))
        res["baseline"] = {"name": getattr(mod, "BASELINE_NAME", "baseline"), "samples_ms": ms}
    if not args.suite:
        del sets, flush_buf
    torch.cuda.empty_cache()
    save("held-out shapes")
    res["held_out"] = held_out(mod, shape, args.rtol, inplace)
    changed = tampered()
    if changed:
        problems.append(problem("timer_tampered", "the kernel replaced " + ", ".join(changed) +
                                " while it ran: the timing cannot be trusted"))
    res["integrity"]["passed"] = not problems
    if args.suite:
        # `goblin kernel suite`: KernelBench's two references on the same rotating inputs. Eager is
        # the file's baseline (the library version) when it has one, else its reference; compiled
        # is torch.compile of the same function (its compilation happens in the untimed estimate).
        # After every check of the kernel: importing torch._dynamo rebinds torch.manual_seed, which
        # the timer-identity check would otherwise blame on the kernel file.
        eager = mod.baseline if hasattr(mod, "baseline") else mod.reference
        ename = getattr(mod, "BASELINE_NAME", "baseline") if hasattr(mod, "baseline") else "reference"
        if hasattr(mod, "baseline"):
            res["eager"] = {"name": ename, "samples_ms": res["baseline"]["samples_ms"]}
        else:
            ms, _, _ = time_rotated(dev, eager, sets, args.warmup_ms, args.rep_ms, flush,
                                    lambda o, r, x: check(o, r, x, True))
            res["eager"] = {"name": ename, "samples_ms": ms}
        try:
            compiled = torch.compile(eager)
            ms, _, _ = time_rotated(dev, compiled, sets, args.warmup_ms, args.rep_ms, flush,
                                    lambda o, r, x: check(o, r, x, True))
            res["compiled"] = {"name": f"torch.compile({ename})", "samples_ms": ms}
        except Exception as e:  # noqa: BLE001 - no compiler (no C compiler, old torch): reported
            res["compiled"] = {"name": f"torch.compile({ename})", "error": f"{type(e).__name__}: {e}"[:400]}
        del sets, flush_buf
    return res


def check(args, shape):
    mod = load_module(args.kernel)
    inplace = bool(getattr(mod, "INPLACE", False))
    return {"harness": HARNESS, "mode": "check", "kernel_blob": git_blob_id(args.kernel),
            "held_out": held_out(mod, shape, args.rtol, inplace)}


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
    return {"harness": HARNESS, "mode": "profile", "launches": args.launches}


class DeadlineExceeded(BaseException):
    pass


def guarded_bench(args, shape):
    """bench() with a verdict whatever the kernel does: running out of GPU memory, raising, or
    running past the deadline each end as a named integrity finding with its evidence (the stage
    reached, memory, the traceback's tail), never as a bare traceback. A kernel that kills the
    process leaves the last checkpoint for goblin, which names the signal."""
    import signal
    faulthandler.enable()  # a segfault still prints the Python stack to stderr

    def on_alarm(signum, frame):
        raise DeadlineExceeded()
    if args.deadline_s > 0:
        signal.signal(signal.SIGALRM, on_alarm)
        signal.setitimer(signal.ITIMER_REAL, args.deadline_s)
    try:
        res = bench(args, shape)
        res["complete"] = True  # goblin treats a result without it as a run that never finished
        return res
    except SystemExit as e:
        if e.code == NO_TORCH_EXIT and CURRENT.get("stage") == "static checks":
            raise
        return failure_verdict(args, KernelExited(f"the kernel file called exit({e.code!r})"))
    except (Exception, DeadlineExceeded) as e:  # noqa: BLE001 - every failure becomes a verdict
        return failure_verdict(args, e)
    finally:
        if args.deadline_s > 0:
            signal.setitimer(signal.ITIMER_REAL, 0)


class KernelExited(Exception):
    pass


def failure_verdict(args, e):
    """The result so far plus a named finding for the failure that ended the bench."""
    import traceback
    res = CURRENT
    res.setdefault("integrity", {"problems": []})
    res["integrity"]["passed"] = False
    stage = res.get("stage", "start")
    tb = "".join(traceback.format_exception(type(e), e, e.__traceback__)[-3:])[-1500:]
    mem = {}
    if "torch" in sys.modules:
        torch = sys.modules["torch"]
        try:
            mem = {"allocated_mib": round(torch.cuda.memory_allocated() / MIB, 1),
                   "max_allocated_mib": round(torch.cuda.max_memory_allocated() / MIB, 1),
                   "device_total_mib": round(torch.cuda.mem_get_info()[1] / MIB, 1)}
        except Exception:  # noqa: BLE001 - a broken context reports no memory
            pass
    if isinstance(e, DeadlineExceeded):
        p = problem("deadline", f"the bench ran past its {args.deadline_s:g} s deadline during {stage}")
    elif type(e).__name__ == "OutOfMemoryError" or "out of memory" in str(e):
        grew = res.get("integrity", {}).get("memory_allocated", [])
        p = problem("out_of_memory", f"the GPU ran out of memory during {stage} ({mem}); "
                                     + ("memory grew across calls: a kernel that keeps results (a cache) "
                                        if grew else "") + f"{type(e).__name__}: {str(e)[:300]}")
    else:
        p = problem("crash", f"the kernel raised {type(e).__name__} during {stage}: {str(e)[:400]}")
    p["evidence"] = {"stage": stage, "memory": mem, "traceback_tail": tb}
    res["integrity"].setdefault("problems", []).append(p)
    c = res.setdefault("correctness", {"passed": False, "max_rel_err": None, "max_abs_err": None,
                                       "threshold": args.rtol})
    c["passed"] = False
    c.setdefault("message", f"no verdict on correctness: {p['check']} during {stage}")
    res.pop("samples_ms", None)  # nothing timed is reported after such a failure
    res["complete"] = True
    return res


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("mode", choices=["inspect", "bench", "check", "profile"])
    ap.add_argument("--kernel", required=True)
    ap.add_argument("--shape", default="{}", help='JSON object, e.g. {"M": 8192, "N": 8192}')
    ap.add_argument("--rtol", type=float, default=1e-2)
    ap.add_argument("--warmup-ms", type=float, default=25)
    ap.add_argument("--rep-ms", type=float, default=200)
    ap.add_argument("--launches", type=int, default=1)
    ap.add_argument("--time-anyway", action="store_true", help="time even when the result is wrong")
    ap.add_argument("--suite", action="store_true",
                    help="also time the eager reference and torch.compile of it (goblin kernel suite)")
    ap.add_argument("--l2-bytes", type=int, default=0,
                    help="L2 size for the input rotation (default: torch's device properties)")
    ap.add_argument("--out", help="write the JSON here (default stdout)")
    ap.add_argument("--deadline-s", type=float, default=0,
                    help="bench: stop with a `deadline` finding after this many seconds (0: none)")
    ap.add_argument("--skip-static", action="store_true",
                    help="bench: record the static findings but run the file anyway (to exercise the runtime checks)")
    args = ap.parse_args()
    shape = json.loads(args.shape)
    if args.mode == "inspect":
        res = inspect_file(args.kernel, shape)
    elif args.mode == "bench":
        res = guarded_bench(args, shape)
    elif args.mode == "check":
        res = check(args, shape)
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
