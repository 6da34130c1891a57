"""The tracer's cost measured inside one process (GOBLIN_TRACER=cupti with GOBLIN_TRACER_AB=K).

Separate processes of a compiled job differ by several per cent from one another (compilation,
memory layout, DataLoader workers), more than the 2 % the tracer may cost, so comparing traced
with untraced *processes* needs very many runs to bound that cost. Here one process, running
under libgoblin_cupti.so, alternates blocks of K optimizer steps with recording paused and
resumed (goblin_cupti_set_recording, through ctypes), in ABBA order (off,on / on,off / ...) so a
linear drift cancels, after GOBLIN_PROFILE_WAIT warm-up steps and for GOBLIN_TRACER_AB_PAIRS
pairs. Each block is bracketed by torch.cuda.synchronize(); its step time is the median of its
K host step times (optimizer step to optimizer step, no per-step sync, so the host still runs
ahead as it does untraced): robust to the data-loading stalls that make single steps of the
compiled config spike to 2-5x; the block's whole wall time is in wall_s. Rows go to $GOBLIN_PROFILE_OUT/ab.csv in the format tracer_overhead_stats reads
(config,repeat,mode,step_time_s,tokens_per_sec,wall_s; mode none = paused, cupti = recording).

What it measures: the cost of recording (activity buffers, API records, CUPTI's kernel
instrumentation). What it does not: the cost of having the library loaded while paused, which
the process-level comparison covers (bench/results/tracer/README.md reports both).
"""
import os
import time

import goblin_tracer_ctl


def install(torch, write_status):
    from torch.optim.optimizer import register_optimizer_step_post_hook

    block = int(os.environ["GOBLIN_TRACER_AB"])
    pairs = int(os.environ.get("GOBLIN_TRACER_AB_PAIRS", "10"))
    wait = int(os.environ.get("GOBLIN_PROFILE_WAIT", "5"))
    name = os.environ.get("GOBLIN_TRACER_AB_NAME", "ab")
    out = os.path.join(os.environ.get("GOBLIN_PROFILE_OUT", "."), "ab.csv")

    def set_recording(on):
        r = goblin_tracer_ctl.set_recording(on)
        if r == -2:
            st["lookup_error"] = goblin_tracer_ctl.error()
        return r

    # Block order: pair i is (off, on) for even i, (on, off) for odd i.
    order = []
    for i in range(pairs):
        order += [(i + 1, False), (i + 1, True)] if i % 2 == 0 else [(i + 1, True), (i + 1, False)]
    st = {"state": "waiting", "pid": os.getpid(), "mode": "ab", "block": block, "pairs": pairs,
          "steps_seen": 0, "tracer": "cupti"}
    box = {"i": -1, "t0": 0.0, "n0": 0, "rows": [], "marks": []}

    def start_block(n):
        box["i"] += 1
        if box["i"] >= len(order):
            st["state"] = "done"
            with open(out, "w") as f:
                f.write("config,repeat,mode,step_time_s,tokens_per_sec,wall_s\n")
                f.writelines(box["rows"])
            set_recording(1)
            write_status(**st)
            return
        torch.cuda.synchronize()
        if set_recording(1 if order[box["i"]][1] else 0) < 0:
            st.update(state="error", error="goblin_cupti_set_recording: the tracer is not active in this process")
            write_status(**st)
            box["i"] = len(order)
            return
        box["t0"], box["n0"] = time.perf_counter(), n
        box["marks"] = [box["t0"]]

    def on_step(optimizer, args, kwargs):
        if os.getpid() != st["pid"] or st["state"] in ("done", "error"):
            return
        st["steps_seen"] += 1
        n = st["steps_seen"]
        if n == wait and st["state"] == "waiting":
            st["state"] = "measuring"
            write_status(**st)
            start_block(n)
        elif st["state"] == "measuring":
            box["marks"].append(time.perf_counter())
            if n - box["n0"] < block:
                return
            torch.cuda.synchronize()
            wall = time.perf_counter() - box["t0"]
            m = box["marks"]
            steps = sorted(b - a for a, b in zip(m, m[1:]))
            s = steps[len(steps) // 2] if len(steps) % 2 else 0.5 * (steps[len(steps) // 2 - 1] + steps[len(steps) // 2])
            rep, rec = order[box["i"]]
            tps = float(os.environ.get("GOBLIN_TOKENS_PER_STEP", "0") or 0)  # set by the workload after import
            box["rows"].append("%s,%d,%s,%.7f,%.1f,%.4f\n" % (name, rep, "cupti" if rec else "none", s,
                                                             tps / s if tps else 0.0, wall))
            start_block(n)

    register_optimizer_step_post_hook(on_step)
