"""goblin's operator observer for the CUPTI tracer's recorded window (goblin_ops.cpp).

The C++ half is a PyTorch RecordFunction callback built against the job's own torch on first use
(torch.utils.cpp_extension.load: the job's headers and ABI, cached under TORCH_EXTENSIONS_DIR, so
only the first run on a machine pays the ~30-60 s build). Where it cannot be built (no compiler,
no headers) the hook falls back to PyTorch's RecordFunction -> NVTX observer and says so.

  on(torch, shapes, modules)   start recording ops (and nn.Module forwards, where cheap)
  off()                        record no new ops; ranges open now (Optimizer.step) still close
  drain()                      hand the records to libgoblin_cupti (goblin_cupti_add_ops)
"""
import os
import time

_st = {}


def load(torch):
    """The built extension module, or None (then _st["error"] says why)."""
    if "mod" in _st:
        return _st["mod"]
    mod = None
    try:
        from torch.utils import cpp_extension

        here = os.path.dirname(os.path.abspath(__file__))
        t = time.perf_counter()
        # -DNDEBUG as torch itself is built: RecordFunction::inputs() is inline, and without it
        # checks a debug-only member that a release torch never sets (c10::Error on ~1/3 of the
        # ops, each costing a backtrace: measured on the H100, bench/results/tracer).
        mod = cpp_extension.load(name="goblin_ops_v3", sources=[os.path.join(here, "goblin_ops.cpp")],
                                 extra_include_paths=[here], extra_cflags=["-O2", "-DNDEBUG"], verbose=False)
        _st["load_s"] = round(time.perf_counter() - t, 3)
    except Exception as e:  # no compiler or headers: the caller falls back to NVTX
        _st["error"] = repr(e)[:500]
        _st["error_full"] = str(e)[-6000:]
    _st["mod"] = mod
    return mod


def _compiled(torch):
    """Whether torch.compile has compiled anything in this process: global module hooks would
    then fail Dynamo's guards and recompile the model inside the window."""
    try:
        from torch._dynamo.utils import counters

        return bool(counters["stats"]["unique_graphs"])
    except Exception:
        return False


def on(torch, shapes, modules):
    mod = load(torch)
    if mod is None:
        return None
    # GOBLIN_TRACER_OPS_MAX: records kept per thread (default 8 million, ~320 MB): a whole-run
    # goblin trace must not grow without bound; ops past it are counted ("skipped" in the stats).
    mod.start(bool(shapes), int(os.environ.get("GOBLIN_TRACER_OPS_MAX", "0") or 0))
    _st["modules"] = "off"
    if modules and not _compiled(torch):
        _st["hooks"] = _module_hooks(torch, mod)
        _st["modules"] = "on"
    elif modules:
        _st["modules"] = "off (compiled model)"
    return "cpp" + ("" if shapes else " names") + ", modules " + _st["modules"]


def _module_hooks(torch, mod):
    """nn.Module forwards as ranges named as torch.profiler names them ("nn.Module: Linear_3",
    the index counting the class's instances in order of first call), from global forward
    pre/post hooks: one Python call per module forward, only inside the window."""
    from torch.nn.modules import module as m

    names, counts = {}, {}

    def pre(module, args):
        i = names.get(id(module))
        if i is None:
            cls = type(module).__name__
            k = counts.get(cls, 0)
            counts[cls] = k + 1
            i = names[id(module)] = mod.intern("nn.Module: %s_%d" % (cls, k))
        mod.module_push(i)

    def post(module, args, out):
        mod.module_pop()

    return [m.register_module_forward_pre_hook(pre), m.register_module_forward_hook(post)]


def off():
    mod = _st.get("mod")
    for h in _st.pop("hooks", []):
        h.remove()
    if mod is not None:
        mod.stop()


def drain(sink_address):
    """Hands the records to the tracer; returns the count kept (or -1), or None with no module."""
    mod = _st.get("mod")
    if mod is None:
        return None
    t = time.perf_counter()
    st = mod.stats()
    n = mod.drain(int(sink_address or 0))
    _st["drain_s"] = round(time.perf_counter() - t, 4)
    _st["stats"] = dict(st)
    return n


def info():
    return {k: v for k, v in _st.items() if k not in ("mod", "hooks", "error_full")}
