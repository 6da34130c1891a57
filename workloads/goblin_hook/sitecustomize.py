"""goblin profiler hook, injected from outside the user's code.

`goblin profile` puts this folder first on PYTHONPATH, so Python imports it at start-up
(sitecustomize). It does nothing unless GOBLIN_PROFILE=1. Then it registers a global
optimizer-step post hook (torch.optim.optimizer.register_optimizer_step_post_hook): every
optimizer step is one training step. After GOBLIN_PROFILE_WAIT steps (warm-up, excluded) it starts
torch.profiler for GOBLIN_PROFILE_ACTIVE steps (a ProfilerStep#N range around each step, as
profiler.step() writes them), synchronises the device at the window's edges, and writes
  $GOBLIN_PROFILE_OUT/trace.json.gz   Kineto chrome trace, metadata tokens_per_sec and
                                      step_time_seconds (tokens from $GOBLIN_TOKENS_PER_STEP)
  $GOBLIN_PROFILE_OUT/hook.json       what the hook did (state, steps, errors)
With GOBLIN_TRACER=cupti (goblin profile --tracer cupti: the process runs under goblin's CUPTI
tracer, libgoblin_cupti.so via CUDA_INJECTION64_PATH) torch.profiler is never started: the hook
only pushes an NVTX range "ProfilerStep#N" around each step of the same window
(torch.cuda.nvtx, recorded by CUPTI as marker activity, so goblin's step detection finds the
steps), and hands step_time_seconds / tokens_per_sec to the tracer through
$GOBLIN_CUPTI_DIR/goblin_meta_<pid>.tsv, which the tracer puts into its trace's metadata.
With GOBLIN_TIME_STEPS=1 and GOBLIN_HOOK_RESULT=1 (`goblin profile/bench/audit --script`: the
user's unmodified script, which writes no result of its own) the hook also times the optimizer
steps itself: after GOBLIN_WARMUP steps it synchronises the device and starts the clock, after
GOBLIN_STEPS more it synchronises again and writes $GOBLIN_RESULT (goblin's result contract:
step_time_seconds, tokens_per_sec from $GOBLIN_TOKENS_PER_STEP = batch x seq x accumulation of
the config, per-step host times, versions). With GOBLIN_EXIT_AFTER_RESULT=1 it then ends the
process (exit 0) once the profiling window, if any, is written too, so a long training script
costs only the measured window. An optimizer step under gradient accumulation is one step.
With GOBLIN_TRACER=cupti the recorded window also carries the operators: the hook installs
goblin's own RecordFunction observer (goblin_ops.py / goblin_ops.cpp, built against this torch;
PyTorch's RecordFunction → NVTX observer where it cannot be built) for the window only, and hands
its records to the tracer after the window, which writes them as cpu_op events with the External
id of the kernels they launched, and nn.Module forwards as python_function frames;
GOBLIN_TRACER_OPS=shapes (default: input shapes too), names, or 0 (off); GOBLIN_TRACER_MODULES=0
(no modules); GOBLIN_TRACER_SHAPES=first (default: shapes and modules in the window's first step,
names only after it; goblin's reader maps the shapes onto the later steps) or every. GOBLIN_PROFILE_WINDOWS=K repeats the window K times (each with its comparison steps;
torch.profiler's too), GOBLIN_PROFILE_VARIANTS gives the windows different tracer configurations
(goblin_variants.py).
With GOBLIN_TRACE_STEPS=1 (`goblin trace -- python3 script.py`) the hook marks every optimizer
step of the whole run as an NVTX range ProfilerStep#N and switches the operator observer on for
the whole run (GOBLIN_TRACER_OPS as above); nothing is paused or timed.
No edit to the user's script. torch is imported lazily: a meta-path finder waits for the user's
own `import torch`, so non-torch Python processes are untouched.
"""
import atexit
import json
import os
import sys
import time

# The operator observer, beside this file (the hook folder is on sys.path): goblin_observer.py.
from goblin_observer import ops_drain as _ops_drain
from goblin_observer import ops_observer as _ops_observer


def _out(name):
    return os.path.join(os.environ.get("GOBLIN_PROFILE_OUT", "."), name)


def _write_status(**kw):
    try:
        with open(_out("hook.json"), "w") as f:
            json.dump(kw, f, indent=1)
    except OSError:
        pass


def _write_first_status(**kw):
    """The "waiting" status, written only when no process has written one yet: other processes
    that import torch with this hook active (Inductor's compile workers, spawned DataLoader
    workers) start after the workload process and must not overwrite its later states."""
    try:
        fd = os.open(_out("hook.json"), os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    except OSError:
        return
    with os.fdopen(fd, "w") as f:
        json.dump(kw, f, indent=1)


class _StepRanges:
    """ProfilerStep#N ranges as NVTX start/end ranges (nvtxRangeStartEx/End, paired by id), not
    push/pop: the hook runs inside the optimizer's own record_function("Optimizer.step#..."),
    which the operator observer turns into a pushed range, so a pop here would close that range
    and the observer's pop would close the step. Falls back to push/pop on a torch without
    range_start."""

    def __init__(self, nvtx):
        self.nvtx = nvtx
        self.open_id = None
        self.paired = hasattr(nvtx, "range_start") and hasattr(nvtx, "range_end")

    def start(self, name):
        if self.paired:
            self.open_id = self.nvtx.range_start(name)
        else:
            self.nvtx.range_push(name)
            self.open_id = True

    def end(self):
        if self.open_id is None:
            return
        if self.paired:
            self.nvtx.range_end(self.open_id)
        else:
            self.nvtx.range_pop()
        self.open_id = None


def _install_trace_steps(torch):
    """GOBLIN_TRACE_STEPS=1 (goblin trace -- python3 script.py): every optimizer step of the run
    is an NVTX range ProfilerStep#N (from the first step's end to the next's, as profiler.step()
    marks them), and the operator observer runs for the whole run."""
    from torch.optim.optimizer import register_optimizer_step_post_hook

    ranges = _StepRanges(torch.cuda.nvtx)
    st = {"pid": os.getpid(), "n": 0}
    st["ops"] = _ops_observer(torch, True)

    def on_step(optimizer, args, kwargs):
        if os.getpid() != st["pid"]:
            return
        st["n"] += 1
        ranges.end()
        ranges.start("ProfilerStep#%d" % (st["n"] + 1))

    def drain():  # Python's atexit runs before the tracer's, which writes the trace
        if os.getpid() == st["pid"]:
            _ops_observer(torch, False)
            _ops_drain()

    register_optimizer_step_post_hook(on_step)
    atexit.register(drain)


def _install_nvtx(torch):
    """GOBLIN_TRACER=cupti: NVTX step ranges only; the CUPTI tracer records everything else.

    With GOBLIN_CUPTI_START_PAUSED=1 the tracer records nothing until this hook resumes it at the
    window's first step, and it pauses it again after the window's last: steps outside the window
    run at the untraced speed (CUPTI's per-launch cost is paid while recording only). With
    GOBLIN_PROFILE_COMPARE=C (C <= GOBLIN_PROFILE_WAIT - 1) the C steps just before the window,
    unrecorded, are timed the same way as the window (CUDA events at the step edges): the
    trace's metadata then carries the untraced step time beside the recorded one and the
    difference, the tracer's cost measured in this very process."""
    from torch.optim.optimizer import register_optimizer_step_post_hook
    import goblin_tracer_ctl
    import goblin_variants

    wait = int(os.environ.get("GOBLIN_PROFILE_WAIT", "5"))
    active = int(os.environ.get("GOBLIN_PROFILE_ACTIVE", "5"))
    paused = os.environ.get("GOBLIN_CUPTI_START_PAUSED") == "1"
    compare = int(os.environ.get("GOBLIN_PROFILE_COMPARE", "0") or 0)
    # GOBLIN_PROFILE_WINDOWS=K: K windows one after another in this process, each with its own
    # comparison steps (the cost study's repeats without K process starts); the trace holds all.
    windows = max(1, int(os.environ.get("GOBLIN_PROFILE_WINDOWS", "1") or 1))
    st = {"state": "waiting", "base": 0, "pid": os.getpid(), "wait": wait, "active": active, "steps_seen": 0,
          "torch": torch.__version__, "tracer": "cupti", "recording": "window" if paused else "whole run"}
    if compare > 0 and wait - compare < 1:
        st["compare_note"] = "GOBLIN_PROFILE_COMPARE=%d needs at least %d warm-up steps; not compared" % (
            compare, compare + 1)
        compare = 0
    if compare > 0:
        st["compare_steps"] = compare
    _write_first_status(**st)
    marks = []
    cmp_marks = []
    ranges = _StepRanges(torch.cuda.nvtx)

    # The window and the comparison steps are timed on the GPU's timeline, by CUDA events recorded
    # at the step edges, not by synchronising there: each synchronisation drains the queue, and
    # the GPU then idles while the host prepares the next step (on base.yaml, data loading in the
    # main thread: ~140 ms per synchronisation, +4-7 % on a 35-step job; bench/results/tracer).
    # Spans between events include any time the GPU waited for the host, so a host-bound step is
    # timed as long as it really takes. Without CUDA the host's clock is used.
    gpu_timed = torch.cuda.is_available()
    edges = {}

    def edge(name):
        if gpu_timed:
            e = torch.cuda.Event(enable_timing=True)
            e.record()
            edges[name] = e
        else:
            edges[name] = time.perf_counter()

    def span_s(a, b):
        if gpu_timed:
            edges[b].synchronize()
            return edges[a].elapsed_time(edges[b]) / 1000.0
        return edges[b] - edges[a]

    def recording(on):
        if not paused:
            return
        t = time.perf_counter()
        r = goblin_tracer_ctl.set_recording(on)
        # What the edge itself cost the program (attaching CUPTI, or flushing and detaching it):
        # outside both timed windows, but the job waits for it.
        st["tracer_resume_s" if on else "tracer_pause_s"] = round(time.perf_counter() - t, 6)
        if r < 0:  # the window would hold nothing: say so rather than write an empty trace silently
            raise RuntimeError("cannot %s the CUPTI tracer (goblin_cupti_set_recording: %s)" % (
                "resume" if on else "pause", goblin_tracer_ctl.error() or "tracer not active in this process"))

    def write_meta(meta):
        d = os.environ.get("GOBLIN_CUPTI_DIR")
        if d:  # the tracer splices these lines into its trace's top level at exit
            try:
                with open(os.path.join(d, "goblin_meta_%d.tsv" % os.getpid()), "w") as f:
                    for k, v in meta.items():
                        f.write("%s\t%s\n" % (k, json.dumps(v)))
            except OSError as e:
                st["metadata_error"] = repr(e)

    def on_step(optimizer, args, kwargs):
        if os.getpid() != st["pid"]:
            return
        st["steps_seen"] += 1
        n = st["steps_seen"] - st["base"]
        try:
            if compare and n == wait - compare and st["state"] == "waiting":
                edge("compare")
                cmp_marks.append(time.perf_counter())
            elif n == wait and st["state"] == "waiting":
                edge("compare_end")
                v = goblin_variants.for_window(len(st.get("windows", [])))
                st["variant"] = v["label"] if v else None
                st["recorded"] = not (v and v["kinds"] == "off")
                if v:  # the operator observer's mode for this window (goblin_variants.py)
                    ops = v["ops"].split("+")
                    st["ops_flags"] = ops[1:]
                    os.environ["GOBLIN_TRACER_OPS"] = ops[0] if st["recorded"] else "0"
                    os.environ["GOBLIN_TRACER_MODULES"] = "0" if "nomod" in ops else "1"
                    if st["recorded"]:
                        st["configure"] = goblin_tracer_ctl.configure(v["kinds"], v["api"])
                else:  # GOBLIN_TRACER_SHAPES=first (default) | every: see goblin_variants.py
                    st["ops_flags"] = goblin_variants.default_flags()
                if "shapes1" in st["ops_flags"] and os.environ.get("GOBLIN_TRACER_OPS", "shapes") == "shapes":
                    st["shapes_first_step"] = True  # the trace's metadata says so (goblin_tracer_shapes)
                # Resuming attaches CUPTI (~1.5 ms of host time): between the two edges, so
                # neither span pays it.
                if st["recorded"]:
                    recording(True)
                st["ops"] = _ops_observer(torch, True)  # the window's operators (cpu_op events)
                edge("window")
                marks.append(time.perf_counter())
                ranges.start("ProfilerStep#%d" % (st["steps_seen"] + 1))
                st["state"] = "recording"
                _write_status(**st)
            elif st["state"] == "recording":
                ranges.end()
                if n - wait >= active:
                    edge("window_end")
                    marks.append(time.perf_counter())
                    _ops_observer(torch, False)
                    if st["recorded"]:
                        recording(False)  # (detaching CUPTI would synchronise: edge() came before)
                    st["state"] = "timing"  # finished by on_step_finish, this step or a later one
                else:
                    if n - wait == 1 and st.get("ops_flags"):
                        goblin_variants.after_first_step(torch, st["ops_flags"], _ops_observer)
                    marks.append(time.perf_counter())
                    ranges.start("ProfilerStep#%d" % (st["steps_seen"] + 1))
        except Exception as e:
            st.update(state="error", error=repr(e))
            _write_status(**st)
            _profile_window_done()  # no window will come: a --script run need not wait for one

    def finish_window(force):
        """Reads the window's timing once the GPU has passed its end edge: at a later step when
        the end event has completed (never a wait), or, forced, at interpreter exit (the run
        ended with the window). Then writes the metadata and the "done" status."""
        if st["state"] != "timing":
            return
        if gpu_timed and not force and not edges["window_end"].query():
            return
        if paused and not force and os.environ.get("GOBLIN_CUPTI_DETACH") == "1" and st.get("recorded", True):
            # With GOBLIN_CUPTI_PAUSE=disable (no synchronisation at the pause), the window's work
            # has now finished: take CUPTI out of the process without synchronising. goblin
            # profile and audit run the tracer this way (runners.cpp); the tracer's own default
            # pause (detach) synchronises instead.
            t = time.perf_counter()
            st["tracer_detach"] = goblin_tracer_ctl.detach()
            st["tracer_detach_s"] = round(time.perf_counter() - t, 6)
        st["ops_drain"] = _ops_drain()  # the window's operators, before the trace is written
        step_s = span_s("window", "window_end") / active
        if cmp_marks:
            st["untraced_step_time_seconds"] = span_s("compare", "compare_end") / compare
        st["timed_by"] = "CUDA events at the step edges" if gpu_timed else "host clock"
        meta = {"step_time_seconds": step_s, "goblin_profiled_steps": active,
                "goblin_hook": "sitecustomize/optimizer_step_post_hook+nvtx",
                "goblin_recorded": "profiled window only" if paused else "whole run",
                "pytorch_version": torch.__version__}
        if st.get("shapes_first_step"):
            # Input shapes and nn.Modules were recorded in each window's first step only: goblin's
            # reader gives the later steps' ops their shapes by matching the op sequence
            # (src/trace/op_shapes.h), and says where it could not.
            meta["goblin_tracer_shapes"] = "first_step"
        tps = os.environ.get("GOBLIN_TOKENS_PER_STEP")
        if tps:
            meta["tokens_per_sec"] = float(tps) / step_s
        un = st.get("untraced_step_time_seconds")
        if un:
            meta["goblin_untraced_step_time_seconds"] = un
            meta["goblin_untraced_steps"] = compare
            meta["goblin_tracer_step_cost_pct"] = round(100.0 * (step_s / un - 1.0), 2)
            st["tracer_step_cost_pct"] = meta["goblin_tracer_step_cost_pct"]
        write_meta(meta)
        st.setdefault("windows", []).append({"step_time_seconds": step_s, "untraced_step_time_seconds": un,
                                             "tracer_step_cost_pct": meta.get("goblin_tracer_step_cost_pct"),
                                             "first_step": st["base"] + wait + 1,
                                             "ops_kept": (st.get("ops_drain") or {}).get("kept"),
                                             "variant": st.get("variant"), "configure": st.pop("configure", None),
                                             "host_step_s": [round(b - a, 6) for a, b in zip(marks, marks[1:])]})
        st.update(state="done", step_time_seconds=step_s, tokens_per_sec=meta.get("tokens_per_sec"),
                  step_times=[round(b - a, 6) for a, b in zip(marks, marks[1:])])
        if len(st["windows"]) < windows and not force:
            # The next window: its comparison steps start after the step that finished this one.
            st.update(state="waiting", base=st["steps_seen"])
            del marks[:], cmp_marks[:]
            st.pop("untraced_step_time_seconds", None)
            _write_status(**st)
            return
        _write_status(**st)
        _profile_window_done()

    def try_finish(force):
        """finish_window for this process's pending window; a failure is the hook's error state.
        Not forced (after each step) a failure also ends a --script run's wait for the window;
        forced (at exit) the process is ending anyway."""
        if os.getpid() != st["pid"] or st["state"] != "timing":
            return
        try:
            finish_window(force)
        except Exception as e:
            st.update(state="error", error=repr(e))
            _write_status(**st)
            if not force:
                _profile_window_done()

    register_optimizer_step_post_hook(on_step)
    # Registered after on_step, so it also runs in the step that ends the window.
    register_optimizer_step_post_hook(lambda optimizer, args, kwargs: try_finish(False))
    # Python's atexit handlers run before the C library's, so the metadata file exists when the
    # tracer's own exit handler splices it into the trace.
    atexit.register(try_finish, True)


_profile_done = {"done": os.environ.get("GOBLIN_PROFILE") != "1"}


def _result_env(torch):
    env = {"torch": getattr(torch, "__version__", "?"), "python": sys.version.split()[0]}
    try:
        env["cuda"] = torch.version.cuda
        env["hip"] = getattr(torch.version, "hip", None)
        if torch.cuda.is_available():
            env["gpu"] = torch.cuda.get_device_name(0)
    except Exception:
        pass
    return env


def _install_timer(torch):
    """GOBLIN_TIME_STEPS=1: time GOBLIN_STEPS optimizer steps after GOBLIN_WARMUP and write the
    result JSON for a script that writes none (GOBLIN_HOOK_RESULT=1)."""
    from torch.optim.optimizer import register_optimizer_step_post_hook

    warmup = int(os.environ.get("GOBLIN_WARMUP", "5"))
    steps = int(os.environ.get("GOBLIN_STEPS", "20"))
    result = os.environ.get("GOBLIN_RESULT")
    write = os.environ.get("GOBLIN_HOOK_RESULT") == "1" and result
    exit_after = os.environ.get("GOBLIN_EXIT_AFTER_RESULT") == "1"
    tps = os.environ.get("GOBLIN_TOKENS_PER_STEP")
    st = {"pid": os.getpid(), "n": 0, "marks": [], "written": False}

    def sync():
        if torch.cuda.is_available():
            torch.cuda.synchronize()

    def finish():
        marks = st["marks"]
        window = marks[-1] - marks[0]
        step_s = window / steps
        res = {"schema": "goblin.workload_result/1", "writer": "goblin_hook (optimizer-step post hook)",
               "step_time_seconds": step_s, "steps_measured": steps, "warmup_steps": warmup,
               "window_seconds": window,
               "step_times": [round(b - a, 6) for a, b in zip(marks, marks[1:])],
               "step_times_note": "host-side intervals between optimizer steps (not device-synchronised, "
                                  "except the window's edges)",
               "env": _result_env(torch), "command": sys.argv}
        if tps:
            res["tokens_per_step"] = int(float(tps))
            res["tokens_per_sec"] = float(tps) / step_s
        tmp = result + ".tmp"
        with open(tmp, "w") as f:
            json.dump(res, f, indent=1)
        os.replace(tmp, result)
        st["written"] = True

    def maybe_exit():
        if exit_after and st["written"] and _profile_done["done"]:
            try:
                sys.stdout.flush()
                sys.stderr.flush()
                if os.environ.get("GOBLIN_TRACER") == "cupti":  # os._exit skips the tracer's atexit
                    import goblin_tracer_ctl

                    goblin_tracer_ctl.write_now()
            finally:
                os._exit(0)

    def on_step(optimizer, args, kwargs):
        if os.getpid() != st["pid"]:
            return
        st["n"] += 1
        n = st["n"]
        try:
            if n == warmup:
                sync()
                st["marks"].append(time.perf_counter())
            elif warmup < n < warmup + steps:
                st["marks"].append(time.perf_counter())
            elif n == warmup + steps and not st["written"]:
                sync()
                st["marks"].append(time.perf_counter())
                if write:
                    finish()
            if st["written"]:
                maybe_exit()
        except Exception as e:  # never break the user's run; say what failed
            _write_status(state="error", error="timer: " + repr(e))

    if warmup <= 0:  # the clock starts before the first step
        st["marks"].append(time.perf_counter())
        st["n"] = 0
    register_optimizer_step_post_hook(on_step)
    return maybe_exit


def _install():
    import torch

    maybe_exit = None
    if os.environ.get("GOBLIN_TRACE_STEPS") == "1" and os.environ.get("GOBLIN_PROFILE") != "1":
        _install_trace_steps(torch)
        return
    if os.environ.get("GOBLIN_TIME_STEPS") == "1":
        maybe_exit = _install_timer(torch)
    if os.environ.get("GOBLIN_PROFILE") != "1":
        return
    _profile_done["exit"] = maybe_exit
    if os.environ.get("GOBLIN_TRACER") == "cupti":
        if os.environ.get("GOBLIN_TRACER_AB"):  # the tracer's cost inside one process (goblin_ab.py)
            import goblin_ab

            goblin_ab.install(torch, _write_status)
            return
        _install_nvtx(torch)
        return
    try:
        import torch.profiler as tp
        from torch.optim.optimizer import register_optimizer_step_post_hook
    except Exception as e:  # profiler missing / too old a torch
        _write_status(state="profiler_missing", error=repr(e), torch=getattr(torch, "__version__", "?"))
        return

    wait = int(os.environ.get("GOBLIN_PROFILE_WAIT", "5"))
    active = int(os.environ.get("GOBLIN_PROFILE_ACTIVE", "5"))
    record_shapes = os.environ.get("GOBLIN_PROFILE_SHAPES", "1") == "1"
    # GOBLIN_PROFILE_COMPARE=C: the C steps before the window timed the same way (synchronised
    # edges), so torch.profiler's cost per recorded step is measured in the same process, as the
    # cupti window's is (bench/results/tracer, issue 30).
    compare = int(os.environ.get("GOBLIN_PROFILE_COMPARE", "0") or 0)
    if compare >= wait:
        compare = 0
    windows = max(1, int(os.environ.get("GOBLIN_PROFILE_WINDOWS", "1") or 1))
    st = {"state": "waiting", "pid": os.getpid(), "wait": wait, "active": active, "steps_seen": 0,
          "torch": torch.__version__, "base": 0}
    cmp_marks = []
    _write_first_status(**st)
    prof_box = {}
    marks = []

    def sync():
        if torch.cuda.is_available():
            torch.cuda.synchronize()

    def on_step(optimizer, args, kwargs):
        if os.getpid() != st["pid"]:
            return
        st["steps_seen"] += 1
        n = st["steps_seen"] - st["base"]
        try:
            if compare and n == wait - compare and "p" not in prof_box:
                sync()
                cmp_marks.append(time.perf_counter())
            elif n == wait and "p" not in prof_box:
                if cmp_marks:
                    sync()
                    st["untraced_step_time_seconds"] = (time.perf_counter() - cmp_marks[0]) / compare
                acts = [tp.ProfilerActivity.CPU]
                if torch.cuda.is_available():
                    acts.append(tp.ProfilerActivity.CUDA)
                p = tp.profile(activities=acts, record_shapes=record_shapes)
                sync()
                p.__enter__()
                prof_box["p"] = p
                marks.append(time.perf_counter())
                # ProfilerStep#N ranges, as profiler.step() writes them under a schedule
                rec = torch.autograd.profiler.record_function("ProfilerStep#%d" % (n + 1))
                rec.__enter__()
                prof_box["rec"] = rec
                st["state"] = "recording"
                _write_status(**st)
            elif "p" in prof_box and st["state"] == "recording":
                p = prof_box["p"]
                prof_box["rec"].__exit__(None, None, None)
                if n - wait >= active:
                    sync()
                    marks.append(time.perf_counter())
                    step_s = (marks[-1] - marks[0]) / active
                    meta = {"step_time_seconds": step_s, "goblin_profiled_steps": active,
                            "goblin_hook": "sitecustomize/optimizer_step_post_hook",
                            "pytorch_version": torch.__version__}
                    tps = os.environ.get("GOBLIN_TOKENS_PER_STEP")
                    if tps:
                        meta["tokens_per_sec"] = float(tps) / step_s
                    for k, v in meta.items():  # while the session is live: stored in the trace
                        try:
                            p.add_metadata_json(k, json.dumps(v))
                        except Exception as e:  # keep the trace; say what is missing
                            st["metadata_error"] = repr(e)
                    p.__exit__(None, None, None)
                    last = len(st.get("windows", [])) + 1 >= windows
                    if last:  # GOBLIN_PROFILE_WINDOWS=K: the last window's trace is written
                        p.export_chrome_trace(_out("trace.json.gz"))
                    st.update(state="done", step_time_seconds=step_s, tokens_per_sec=meta.get("tokens_per_sec"))
                    un = st.pop("untraced_step_time_seconds", None)
                    if un:
                        st["untraced_step_time_seconds"] = un
                        st["tracer_step_cost_pct"] = round(100.0 * (step_s / un - 1.0), 2)
                    st.setdefault("windows", []).append({
                        "step_time_seconds": step_s, "untraced_step_time_seconds": un,
                        "tracer_step_cost_pct": st.get("tracer_step_cost_pct"), "first_step": st["base"] + wait + 1})
                    if not last:
                        prof_box.clear()
                        del marks[:], cmp_marks[:]
                        st.update(state="waiting", base=st["steps_seen"])
                        _write_status(**st)
                        return
                    _write_status(**st)
                    _profile_window_done()
                else:
                    marks.append(time.perf_counter())
                    rec = torch.autograd.profiler.record_function("ProfilerStep#%d" % (n + 1))
                    rec.__enter__()
                    prof_box["rec"] = rec
        except Exception as e:
            st.update(state="error", error=repr(e))
            _write_status(**st)

    register_optimizer_step_post_hook(on_step)


def _profile_window_done():
    """The profiled window is written: a timer waiting to end the process may do so now."""
    _profile_done["done"] = True
    ex = _profile_done.get("exit")
    if ex:
        ex()


class _Finder:
    """Installs the hook right after the user's program has finished importing torch."""

    def find_spec(self, name, path=None, target=None):
        if name != "torch":
            return None
        sys.meta_path.remove(self)
        import importlib.util

        spec = importlib.util.find_spec(name)
        if spec is None or spec.loader is None:
            return spec
        orig = spec.loader.exec_module

        def exec_module(module):
            orig(module)
            try:
                _install()
            except Exception as e:
                _write_status(state="error", error=repr(e))

        spec.loader.exec_module = exec_module
        return spec


if (os.environ.get("GOBLIN_PROFILE") == "1" or os.environ.get("GOBLIN_TIME_STEPS") == "1"
        or os.environ.get("GOBLIN_TRACE_STEPS") == "1") and \
        "torch" not in sys.modules:
    sys.meta_path.insert(0, _Finder())
