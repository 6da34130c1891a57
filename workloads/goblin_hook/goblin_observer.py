"""The operator observer of goblin's hook (sitecustomize.py): which ATen op and nn.Module launched
each kernel of the recorded window. goblin's own RecordFunction callback (goblin_ops.py over
goblin_ops.cpp) where it can be built, else PyTorch's RecordFunction -> NVTX observer; switched on
at the window's first step and off at its end, its records handed to the CUPTI tracer after the
window (goblin_tracer_ctl.py).
"""
import os


def ops_observer(torch, on, box={}):
    """Switches the operator observer on or off (GOBLIN_TRACER_OPS: shapes, the default, names,
    or 0). GOBLIN_TRACER_OBSERVER=cpp (default): goblin's own RecordFunction callback
    (goblin_ops.py / goblin_ops.cpp: a fixed-size record per op in a per-thread buffer, handed to
    the tracer once by ops_drain), with nn.Module forwards too unless GOBLIN_TRACER_MODULES=0;
    =nvtx, or where the extension cannot be built: PyTorch's RecordFunction -> NVTX observer
    (torch.autograd.profiler.emit_nvtx, ~2 us per op). Returns what it did ("cpp ...", "nvtx",
    "off", "disabled", or the error)."""
    mode = os.environ.get("GOBLIN_TRACER_OPS", "shapes")
    if mode == "0":
        return "disabled"
    if on and os.environ.get("GOBLIN_TRACER_OBSERVER", "cpp") == "cpp" and "kind" not in box:
        try:
            import goblin_ops

            r = goblin_ops.on(torch, mode == "shapes", os.environ.get("GOBLIN_TRACER_MODULES", "1") != "0")
            if r:
                box["kind"] = "cpp"
                return r
            box["cpp_error"] = goblin_ops.info().get("error")
        except Exception as ex:
            box["cpp_error"] = repr(ex)[:300]
    if not on and box.get("kind") == "cpp":
        import goblin_ops

        box.pop("kind")
        goblin_ops.off()  # ranges open now (Optimizer.step) still close: no warning, no open range
        return "off"
    if not on and box.get("kind") == "nvtx":
        # Switching emit_nvtx off inside Optimizer.step (the hook runs there) leaves that range
        # without its end and PyTorch warns ("Exception in RecordFunction callback"): switch it
        # off at the next module forward instead, outside the optimizer's step.
        def later(*a):
            nvtx_observer(torch, False, box)
            for h in box.pop("later", []):
                h.remove()

        try:
            from torch.nn.modules import module as m

            box["later"] = [m.register_module_forward_pre_hook(later)]
            return "off at the next forward"
        except Exception:
            return nvtx_observer(torch, False, box)
    if on and "kind" not in box:
        r = nvtx_observer(torch, True, box)
        return r + (" (cpp observer: %s)" % box["cpp_error"] if box.get("cpp_error") else "")
    return "unchanged"


def nvtx_observer(torch, on, box):
    """PyTorch's RecordFunction -> NVTX observer. emit_nvtx synchronises the device on entry and
    exit; a synchronisation drains the launch queue (a host-side step on a launch-bound job), so
    torch.cuda.synchronize is a no-op while it switches: the ranges are host-side and need none."""
    sync = torch.cuda.synchronize
    torch.cuda.synchronize = lambda *a, **k: None
    try:
        if on and "e" not in box:
            mode = os.environ.get("GOBLIN_TRACER_OPS", "shapes")
            e = torch.autograd.profiler.emit_nvtx(enabled=True, record_shapes=(mode == "shapes"))
            e.__enter__()
            box["e"], box["kind"] = e, "nvtx"
            return "nvtx"
        if not on and "e" in box:
            box.pop("e").__exit__(None, None, None)
            box.pop("kind", None)
            return "off"
        return "unchanged"
    except Exception as ex:  # never break the run: the trace then has no operators
        return "error: " + repr(ex)
    finally:
        torch.cuda.synchronize = sync


def ops_drain():
    """Hands goblin's observer's records to the tracer (after the window; at exit for goblin
    trace). Returns what happened, or None when the cpp observer never ran."""
    try:
        import goblin_ops
        import goblin_tracer_ctl

        n = goblin_ops.drain(goblin_tracer_ctl.add_ops_address())
        if n is None:
            return None
        return dict(goblin_ops.info(), kept=n)
    except Exception as ex:
        return {"error": repr(ex)[:300]}
