"""Pause and resume goblin's CUPTI tracer (libgoblin_cupti.so) from inside the traced process.

The CUDA driver loads the tracer at cuInit, through CUDA_INJECTION64_PATH, so the library is
already in the process when this is first called; it is looked up then (RTLD_NOLOAD: never a
second copy) and the lookup is kept. set_recording returns what goblin_cupti_set_recording does:
the previous state (1 recording, 0 paused), or -1 when the tracer is not active in this process;
-2 when the library or its symbol could not be found (error() says why). write_now writes the
trace at once (for a process about to end with os._exit, which skips the tracer's atexit); detach
takes CUPTI out of the process while paused (what the steps after a window pay).
"""
import ctypes
import os

_fn = {}


def _lookup():
    if "f" not in _fn:
        try:
            lib = ctypes.CDLL(os.environ["CUDA_INJECTION64_PATH"], mode=os.RTLD_NOLOAD | os.RTLD_NOW)
            f = lib.goblin_cupti_set_recording
            f.argtypes, f.restype = [ctypes.c_int], ctypes.c_int
            w = lib.goblin_cupti_write_now
            w.argtypes, w.restype = [], ctypes.c_int
            d = getattr(lib, "goblin_cupti_detach", None)  # absent from tracers before 2026-11-24
            if d is not None:
                d.argtypes, d.restype = [ctypes.c_int], ctypes.c_int
            a = getattr(lib, "goblin_cupti_add_ops", None)  # absent from tracers before 2026-11-26
            c = getattr(lib, "goblin_cupti_configure", None)  # absent before the third session of 2026-11-26
            if c is not None:
                c.argtypes, c.restype = [ctypes.c_char_p, ctypes.c_char_p], ctypes.c_int
            _fn["c"] = c
            _fn["f"], _fn["w"], _fn["d"] = f, w, d
            _fn["a"] = ctypes.cast(a, ctypes.c_void_p).value if a is not None else None
        except (OSError, AttributeError, KeyError) as e:
            _fn["f"] = _fn["w"] = _fn["d"] = None
            _fn["error"] = repr(e)
    return _fn["f"]


def set_recording(on):
    f = _lookup()
    return f(1 if on else 0) if f else -2


def detach():
    """Detaches CUPTI while paused, without synchronising (the caller knows the recorded work has
    finished): 1 detached, 0 nothing attached, -1 refused or failed, -2 not available."""
    _lookup()
    d = _fn.get("d")
    return d(0) if d else -2


def configure(kinds, api):
    """What the next attach records (GOBLIN_CUPTI_KINDS text, "launch" or "all"); only while
    paused and detached: 0 done, -1 refused, -2 not available."""
    _lookup()
    c = _fn.get("c")
    return c(kinds.encode(), api.encode()) if c else -2


def add_ops_address():
    """The address of goblin_cupti_add_ops (goblin_ops_abi.h), where goblin's operator observer
    hands its records over; None when the tracer is absent or older."""
    _lookup()
    return _fn.get("a")


def write_now():
    _lookup()
    return _fn["w"]() if _fn["w"] else -2


_step = {"n": 0, "id": None}


def step():
    """Marks a training step for goblin's step detection, for loops the hook cannot see (no
    torch.optim optimizer): call it once per step; each call closes the previous step's range and
    opens the next (an NVTX range ProfilerStep#N, what torch.profiler's profiler.step() writes).
    Needs only torch; works under any NVTX-recording tool."""
    import torch

    nvtx = torch.cuda.nvtx
    # start/end ranges (paired by id), so ranges pushed around the call stay intact; push/pop on
    # a torch without range_start
    paired = hasattr(nvtx, "range_start")
    if _step["id"] is not None:
        nvtx.range_end(_step["id"]) if paired else nvtx.range_pop()
    _step["n"] += 1
    name = "ProfilerStep#%d" % _step["n"]
    _step["id"] = nvtx.range_start(name) if paired else (nvtx.range_push(name) or True)


def error():
    return _fn.get("error")
