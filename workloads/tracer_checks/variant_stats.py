"""Per-configuration cost over the hook's alternating windows (GOBLIN_PROFILE_VARIANTS, issue 30).

Groups a hook.json's windows by variant and prints, per variant, the mean tracer_step_cost_pct
with a 95 % interval (percentile bootstrap of the mean, 2000 resamples, seed 0x60B11 as
windows_stats.py), the median, the mean difference recorded - untraced in ms per step, and the
mean untraced / recorded step times. Windows without a variant (torch.profiler's) are "torch".
Usage: variant_stats.py hook.json ...
"""
import json
import random
import statistics as S
import sys


def boot(xs):
    rng = random.Random(0x60B11)
    m = sorted(S.fmean(rng.choices(xs, k=len(xs))) for _ in range(2000))
    return round(m[49], 1), round(m[1949], 1)


for path in sys.argv[1:]:
    by = {}
    for w in json.load(open(path))["windows"]:
        by.setdefault(w.get("variant") or "torch", []).append(w)
    print(path)
    print("  %-16s %2s %7s %15s %7s %7s %9s %9s" % ("variant", "n", "mean %", "95 % (boot)", "med %", "d ms", "untr. ms", "rec. ms"))
    for v, ws in by.items():
        c = [w["tracer_step_cost_pct"] for w in ws]
        un = [w["untraced_step_time_seconds"] for w in ws]
        rs = [w["step_time_seconds"] for w in ws]
        d = S.fmean(1000 * (a - b) for a, b in zip(rs, un))
        print("  %-16s %2d %7.1f %15s %7.1f %7.1f %9.1f %9.1f   %s" % (
            v, len(ws), S.fmean(c), "[%+.1f, %+.1f]" % boot(c), S.median(c), d, 1000 * S.fmean(un),
            1000 * S.fmean(rs), c))
