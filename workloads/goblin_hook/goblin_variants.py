"""Windows of several tracer configurations in one process (issue 30's cost study).

GOBLIN_PROFILE_VARIANTS="label=KINDS|API|OPS;label=..." (with GOBLIN_PROFILE_WINDOWS=K): window i
runs variant i mod N, so the configurations alternate inside one process and the step-to-step
drift of a long run falls on all of them alike. KINDS is GOBLIN_CUPTI_KINDS' text (`off`: this
window is not recorded at all, the A/A floor of the comparison), API `launch` or `all`
(GOBLIN_CUPTI_API), OPS the operator observer's mode (shapes, names, 0) with flags: `+nomod` (no
nn.Module ranges), `+first` (the observer in the window's first recorded step only), `+shapes1`
(shapes and modules in the first step, names only after it). The tracer takes the
configuration at its next attach (goblin_cupti_configure), so the hook must detach between windows
(GOBLIN_CUPTI_PAUSE=disable with GOBLIN_CUPTI_DETACH=1, or the default detach)."""
import os


def parse(text):
    out = []
    for part in (text or "").split(";"):
        part = part.strip()
        if not part:
            continue
        label, _, spec = part.partition("=")
        f = (spec.split("|") + ["", "", ""])[:3]
        out.append({"label": label.strip(), "kinds": f[0] or "all", "api": f[1] or "launch", "ops": f[2] or "shapes"})
    return out


_v = {"list": None}


def for_window(index):
    """The variant of window `index` (0-based), or None without GOBLIN_PROFILE_VARIANTS."""
    if _v["list"] is None:
        _v["list"] = parse(os.environ.get("GOBLIN_PROFILE_VARIANTS", ""))
    lst = _v["list"]
    return lst[index % len(lst)] if lst else None


def default_flags():
    """The observer's flags of a window without GOBLIN_PROFILE_VARIANTS: GOBLIN_TRACER_SHAPES=first
    (the default) records input shapes and nn.Modules in the window's first recorded step only and
    names after it (`shapes1`): boxing every op's inputs cost the HF Trainer's step ~17 ms
    (~0.85 us per op, bench/results/tracer, 2026-11-26), and a training step
    repeats its op sequence, so goblin's reader maps the first step's shapes onto the others.
    `every`: shapes in every step."""
    if os.environ.get("GOBLIN_TRACER_OPS", "shapes") != "shapes":
        return []
    return [] if os.environ.get("GOBLIN_TRACER_SHAPES", "first") == "every" else ["shapes1"]


def after_first_step(torch, flags, ops_observer):
    """At the end of a window's first recorded step: `first` stops the observer, `shapes1` goes on
    with names only (a training loop's shapes repeat step after step)."""
    if "first" in flags:
        ops_observer(torch, False)
    elif "shapes1" in flags:
        import goblin_ops

        goblin_ops.off()
        goblin_ops.on(torch, False, False)
