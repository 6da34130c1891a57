"""The timing half of tools/kernel_harness.py (docs/kernel.md "Honest measurement"): input sets
that rotate and are regenerated from new seeds so every timed call gets inputs it has not seen,
do_bench's event timing with an L2 flush per rep, and the checks that all the work a call starts
is timed (work left pending on other streams, a wall clock far above the event time). The harness
imports these before any kernel file and keeps them in its trusted slots: a kernel file that
replaces one is refused.
"""
import math

def as_tuple(x):
    return tuple(x) if isinstance(x, (tuple, list)) else (x,)


def is_tensor(x):
    return hasattr(x, "untyped_storage") and hasattr(x, "data_ptr")


# ---------------------------------------------------------------------------------------------
# Input sets: every timed call gets inputs it has not seen.

L2_FALLBACK_BYTES = 50 * 1024 * 1024  # H100's 50 MB (data/gpus.yaml) when torch does not say
MAX_SETS = 512
MAX_HEAT_MS = 100  # at most this much untimed kernel work before a timed round
MAX_REPS = 20000  # do_bench has no cap; a kernel whose estimate is ~0 would otherwise run for ever


def sets_needed(set_bytes, l2_bytes, cap=MAX_SETS):
    """Enough distinct input sets that together they hold at least twice the L2 (at least 2)."""
    if set_bytes <= 0:
        return 2
    return int(max(2, min(cap, math.ceil(2 * l2_bytes / set_bytes))))


def tensor_bytes(xs):
    return sum(x.numel() * x.element_size() for x in xs if is_tensor(x))


class InputSets:
    """k input sets of the bench shape. regenerate() refills each in place from a new seed (same
    pointers, new values: a kernel that memoises by pointer returns stale results, which the
    output check catches) and recomputes the references outside the timed region."""

    def __init__(self, mod, shape, k, first_seed, manual_seed):
        self.mod, self.shape, self.k, self.manual_seed = mod, shape, k, manual_seed
        self.seed = first_seed
        self.sets = [self._make() for _ in range(k)]
        self.refs = [None] * k
        self.heater = self._make()  # untimed calls before each timed round run on this set only

    def _make(self):
        self.seed += 1
        self.manual_seed(self.seed)
        return as_tuple(self.mod.make_inputs(**self.shape))

    def fresh(self):
        """One more input set from a new seed, outside the rotation (the gate's probe)."""
        return self._make()

    def regenerate(self):
        for i in range(self.k):
            fresh = self._make()
            for dst, src in zip(self.sets[i], fresh):
                if is_tensor(dst):
                    dst.copy_(src)
            del fresh
            self.refs[i] = None
        for i in range(self.k):
            self.refs[i] = self.mod.reference(*self.sets[i])


def time_rotated(dev, fn, sets, warmup_ms, rep_ms, flush, check, watch=None):
    """do_bench's method (estimate over 5 calls, warm-up, then per rep: flush L2, event, call,
    event) over rotating input sets. Each round calls every set once; the sets are regenerated
    before every timed round and each output is checked after the round with
    check(out, ref, inputs) -> (ok, max_rel_err, max_abs_err, message). Returns (samples_ms, stats,
    the first wrong output or None)."""
    k = sets.k
    sets.regenerate()
    stats = {"rounds": 0, "outputs_checked": 0}
    bad = None

    def round_(n, timed):
        nonlocal bad
        outs, starts, ends = [], [], []
        for i in range(n):
            x = sets.sets[i]
            if timed:
                flush()
                s, e = dev.event(), dev.event()
                dev.record(s)
                outs.append(fn(*x))
                dev.record(e)
                starts.append(s)
                ends.append(e)
            else:
                outs.append(fn(*x))
        dev.sync()
        stats["_synced_at"] = dev.perf()  # untimed work (checks, regeneration) starts here
        for i, o in enumerate(outs):
            ok, err, _, msg = check(o, sets.refs[i], sets.sets[i])
            stats["outputs_checked"] += 1
            if not ok and bad is None:
                bad = {"round": stats["rounds"], "set": i, "timed": timed, "max_rel_err": err, "message": msg}
        stats["rounds"] += 1
        del outs
        if watch is not None:
            watch()  # the caller's look at the device after each round (memory held by the kernel)
        return [dev.elapsed(s, e) for s, e in zip(starts, ends)]

    # Estimate the call's time as do_bench does (5 calls, L2 flushed).
    # Twice: the first pass pays for the allocator's first cudaMalloc of each output.
    for _ in range(2):
        s, e = dev.event(), dev.event()
        dev.record(s)
        for i in range(5):
            flush()
            fn(*sets.sets[i % k])
        dev.record(e)
        dev.sync()
    est = max(dev.elapsed(s, e) / 5, 1e-3)
    n_warm, n_rep = min(MAX_REPS, max(1, int(warmup_ms / est))), min(MAX_REPS, max(1, int(rep_ms / est)))
    done = 0
    while done < n_warm:
        n = min(k, n_warm - done)
        round_(n, False)
        done += n
    # Between timed rounds the GPU regenerates inputs and checks outputs; without more, a
    # power-limited kernel (a bf16 matmul) would run each timed round at the higher clocks of a
    # rested GPU, 10 % faster than do_bench's back-to-back reps. So each timed round is preceded by
    # as much untimed work of the kernel itself (on the heater set, never timed or checked) as the
    # regeneration and checks took: the timed calls run in do_bench's sustained state.
    samples = []
    stats["heat_calls"] = 0
    last = dev.perf()
    while len(samples) < n_rep:
        sets.regenerate()  # values never seen before, outside the timed region
        dev.sync()
        heat = int(min(MAX_HEAT_MS, (dev.perf() - last) * 1e3) / est) + 1
        for _ in range(heat):
            flush()
            fn(*sets.heater)
        stats["heat_calls"] += heat
        samples += round_(min(k, n_rep - len(samples)), True)
        last = stats.pop("_synced_at")
    stats["estimate_ms"] = est
    return samples, stats, bad


# ---------------------------------------------------------------------------------------------
# Synchronisation: all the work a call starts is timed.

WALL_RATIO = 1.5        # wall clock per call may exceed max(event time, launch time) by 50 % ...
WALL_SLACK_MS = 0.05    # ... plus 50 us of host overhead (Python, allocator, synchronize)
PENDING_SLACK_MS = 0.02  # a device-wide synchronize after the call's stream is idle: idle + 20 us


def median(xs):
    xs = sorted(xs)
    n = len(xs)
    return 0.0 if n == 0 else (xs[n // 2] if n % 2 else 0.5 * (xs[n // 2 - 1] + xs[n // 2]))


def judge_wall(event_ms, wall_ms, launch_ms):
    """A problem (str) when the wall clock per call (back to back, device-wide synchronize at the
    end) is far above both the event time and the host's launch time: work on another stream."""
    bound = WALL_RATIO * max(event_ms, launch_ms) + WALL_SLACK_MS
    if wall_ms > bound:
        return (f"wall clock {wall_ms:.4g} ms per call (device-wide synchronize) vs {event_ms:.4g} ms by CUDA events "
                f"and {launch_ms:.4g} ms to launch: the call's work is not on the timed stream")
    return None


def judge_pending(busy_streams, sync_ms, idle_sync_ms):
    """A problem (str) when work was still running after the call returned and its stream was
    idle: a torch stream still busy, or a device-wide synchronize that waited on something."""
    if max(busy_streams, default=0) > 0:
        return (f"{max(busy_streams)} other CUDA stream(s) still had work after the call returned and its stream "
                "finished: the kernel runs on a side stream that the timing does not see")
    if median(sync_ms) > 3 * median(idle_sync_ms) + PENDING_SLACK_MS:
        return (f"a device-wide synchronize after the call took {median(sync_ms):.4g} ms (idle: "
                f"{median(idle_sync_ms):.4g} ms): work was left running after the call returned")
    return None


def pool_streams(torch):
    """torch's stream pools (32 streams per priority, handed out round-robin): creating 32 of each
    priority returns every stream a kernel file can get from torch.cuda.Stream() (recent torch has
    up to four priority levels; an out-of-range priority is clamped to a level already covered)."""
    out = []
    for prio in (0, -1, -2, -3):
        try:
            out += [torch.cuda.Stream(priority=prio) for _ in range(32)]
        except RuntimeError:
            pass
    return out


def probe_pending(dev, t, fn, args, streams, n=5):
    query = t["torch.cuda.Stream.query"]

    def once(f):
        dev.sync()
        out = f()
        e = dev.event()
        dev.record(e)
        dev.wait(e)  # the call's own stream is done
        busy = sum(1 for s in streams if not query(s))
        t0 = dev.perf()
        dev.sync()
        ms = (dev.perf() - t0) * 1e3
        del out
        return busy, ms

    idle = [once(lambda: None)[1] for _ in range(n)]
    runs = [once(lambda: fn(*args)) for _ in range(n)]
    return {"busy_streams": [b for b, _ in runs], "sync_ms": [m for _, m in runs], "idle_sync_ms": idle}


def wall_clock(dev, fn, sets, est_ms):
    r = int(max(3, min(200, 50 / max(est_ms, 1e-3))))
    launch = 0.0
    dev.sync()
    t0 = dev.perf()
    for j in range(r):
        a = dev.perf()
        fn(*sets.sets[j % sets.k])
        launch += dev.perf() - a
    dev.sync()
    return {"calls": r, "wall_ms": (dev.perf() - t0) * 1e3 / r, "launch_ms": launch * 1e3 / r}


# ---------------------------------------------------------------------------------------------
# The gate: work hidden on a side stream, caught whatever the timing. The probe above and the wall
# clock see such work only if it is still running when they look; a launch-bound call whose side
# work finishes within the launch time passes both. Here every pooled stream is made to wait on an
# event held back by a spin kernel while the call runs; the call's own stream is not held, so its
# work completes, and its output is copied on that stream the moment the call's work is done. If
# the gate was still closed when that copy finished, nothing on a pooled stream can have run yet:
# an output that changes afterwards was written by work the timer never saw. Deterministic.

GATE_MIN_MS = 5.0      # the gate stays closed at least this long ...
GATE_CALL_FACTOR = 20  # ... and at least 20 calls' worth (the call and the copy must finish first)
GATE_MAX_MS = 2000.0


def gate_ms(est_ms):
    return min(GATE_MAX_MS, max(GATE_MIN_MS, GATE_CALL_FACTOR * est_ms))


class Gate:
    """Holds the pooled streams behind torch.cuda._sleep on one of them. `t` is the harness's
    trusted bindings; `streams` the pooled streams (pool_streams)."""

    def __init__(self, torch, t, streams):
        self.t, self.streams, self.event = t, streams, None
        self.stream = streams[0]
        self.sleep, self.enter = t["torch.cuda._sleep"], t["torch.cuda.stream"]
        s, e = t["torch.cuda.Event"](enable_timing=True), t["torch.cuda.Event"](enable_timing=True)
        with self.enter(self.stream):
            t["torch.cuda.Event.record"](s)
            self.sleep(1000000)
            t["torch.cuda.Event.record"](e)
        t["torch.cuda.Event.synchronize"](e)
        self.cycles_per_ms = 1e6 / max(t["torch.cuda.Event.elapsed_time"](s, e), 1e-3)

    def close(self, ms):
        t = self.t
        self.event = t["torch.cuda.Event"]()
        with self.enter(self.stream):
            self.sleep(int(ms * self.cycles_per_ms))
            t["torch.cuda.Event.record"](self.event)
        for s in self.streams[1:]:
            t["torch.cuda.Stream.wait_event"](s, self.event)

    def closed(self):
        return not self.t["torch.cuda.Event.query"](self.event)


def probe_gated(dev, gate, fn, fresh_args, snapshot, same, prepare, est_ms, n=2):
    """n calls, each on new inputs (fresh_args()) into poisoned memory (prepare()), with the pooled
    streams held behind the gate. snapshot(out) copies the outputs on the call's stream; same(a, b)
    compares bytes. Per call: whether the gate was still closed after the copy, and whether the
    output changed after it. A call that itself waits on a pooled stream finds the gate open: that
    work is timed, and such a call proves nothing here."""
    runs = []
    ms = gate_ms(est_ms)
    for _ in range(n):
        args = fresh_args()
        dev.sync()
        prepare()
        gate.close(ms)
        out = fn(*args)
        snap = snapshot(out)
        e = dev.event()
        dev.record(e)
        dev.wait(e)
        closed = gate.closed()
        dev.sync()
        runs.append({"gate_closed": bool(closed), "changed_after_timer": not same(snap, out)})
        del out, snap, args
    return {"gate_ms": ms, "runs": runs}


def judge_gated(runs):
    """A problem (str) when, with the gate still closed, a call's output changed after its own stream
    had finished: written by work on a side stream, outside anything a timer on the call's stream counts."""
    hit = [r for r in runs if r["gate_closed"] and r["changed_after_timer"]]
    if hit:
        return (f"the output changed after the call's stream had finished ({len(hit)} of {len(runs)} calls, with "
                "every pooled CUDA stream held back until then): the kernel writes its result from a side stream, "
                "work that a timer on the call's stream does not count")
    return None
