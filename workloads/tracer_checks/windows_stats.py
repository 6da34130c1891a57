"""Per-recorded-step cost over the hook's repeated windows (GOBLIN_PROFILE_WINDOWS, issue 30).

Each window's tracer_step_cost_pct (hook.json "windows") compares the 5 recorded steps with the
5 unrecorded steps just before them in the same process; this prints, per hook.json, the mean
over the windows with a 95 % interval (percentile bootstrap of the mean, 2000 resamples, seed
0x60B11 as goblin bench's statistics, and Student's t), the median, min and max.
Usage: windows_stats.py NAME=hook.json ...   -> one JSON line per file, then a Markdown table.
"""
import json
import random
import statistics
import sys

T975 = {2: 12.706, 3: 4.303, 4: 3.182, 5: 2.776, 6: 2.571, 7: 2.447, 8: 2.365, 9: 2.306, 10: 2.262}


def stats(xs):
    rng = random.Random(0x60B11)
    means = sorted(statistics.fmean(rng.choices(xs, k=len(xs))) for _ in range(2000))
    m = statistics.fmean(xs)
    sd = statistics.stdev(xs) if len(xs) > 1 else 0.0
    t = T975.get(len(xs), 1.96)
    return {"n": len(xs), "mean_pct": round(m, 2), "boot95": [round(means[49], 2), round(means[1949], 2)],
            "t95": [round(m - t * sd / len(xs) ** 0.5, 2), round(m + t * sd / len(xs) ** 0.5, 2)],
            "median_pct": round(statistics.median(xs), 2), "min_pct": min(xs), "max_pct": max(xs), "windows_pct": xs}


rows = []
for arg in sys.argv[1:]:
    name, path = arg.split("=", 1)
    h = json.load(open(path))
    xs = [w["tracer_step_cost_pct"] for w in h.get("windows", []) if w.get("tracer_step_cost_pct") is not None]
    if not xs and h.get("tracer_step_cost_pct") is not None:
        xs = [h["tracer_step_cost_pct"]]
    s = dict(stats(xs), name=name, ops=h.get("ops"))
    print(json.dumps(s))
    rows.append(s)
print("| run | n | mean | 95 % (bootstrap) | 95 % (t) | median | per window |")
print("| --- | --- | --- | --- | --- | --- | --- |")
for s in rows:
    print("| %s | %d | %+.1f %% | [%+.1f, %+.1f] | [%+.1f, %+.1f] | %+.1f %% | %s |" % (
        s["name"], s["n"], s["mean_pct"], *s["boot95"], *s["t95"], s["median_pct"],
        ", ".join("%+.1f" % x for x in s["windows_pct"])))
