#!/usr/bin/env python3
"""Leave-one-out calibration of the audit's predicted ranges on the recorded rounds (rounds.json).

For each round, the *other* rounds on the same GPU that share at least one rule (the history's own
matching, docs/audit.md § History) say where in their predicted range the measurement fell: its
position p = ln(measured / low) / ln(high / low), 0 at the low end, 1 at the high end. With at
least 3 such rounds, the held-out round's range is narrowed to the band [min p - margin, max p +
margin] of its own range (clipped to [0, 1]: the band only narrows, never moves outside the
model's range). Rounds whose range is a point (high / low < 1.05) give no position.

Prints, for the models' ranges and the narrowed ones: rounds held (measured point inside), held
counting the measurement's 95 % interval (interval overlaps the range), median and largest width
(high / low). Usage: loo.py [rounds.json] [--margin 0.1] [--json OUT]
"""
import argparse
import json
import math
import statistics


def position(r):
    w = r["high"] / r["low"]
    if w < 1.05:
        return None
    return math.log(r["measured"] / r["low"]) / math.log(w)


def narrowed(r, others, margin, min_rounds):
    ps = [p for p in (position(o) for o in others) if p is not None]
    if len(ps) < min_rounds or r["high"] / r["low"] < 1.05:
        return r["low"], r["high"], len(ps)
    lo_p, hi_p = max(0.0, min(ps) - margin), min(1.0, max(ps) + margin)
    w = r["high"] / r["low"]
    return r["low"] * w ** lo_p, r["low"] * w ** hi_p, len(ps)


def summary(rows, key_lo, key_hi):
    held = sum(1 for x in rows if x[key_lo] <= x["measured"] <= x[key_hi])
    overlap = sum(1 for x in rows if x["ci_low"] <= x[key_hi] and x["ci_high"] >= x[key_lo])
    widths = [x[key_hi] / x[key_lo] for x in rows]
    return {"rounds": len(rows), "held": held, "held_pct": round(100.0 * held / len(rows), 1),
            "interval_overlaps": overlap, "median_width": round(statistics.median(widths), 3),
            "max_width": round(max(widths), 3)}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("rounds", nargs="?", default="rounds.json")
    ap.add_argument("--margin", type=float, default=0.1)
    ap.add_argument("--min-rounds", type=int, default=3)
    ap.add_argument("--json")
    a = ap.parse_args()
    allr = json.load(open(a.rounds))["rounds"]
    # A round that was not significant measured no change; the models' older method is kept apart.
    rounds = [r for r in allr if r["significant"] and r["method"] == "speedup_models"]
    rows = []
    for r in rounds:
        others = [o for o in rounds if o is not r and o["gpu"] == r["gpu"] and set(o["rules"]) & set(r["rules"])]
        lo, hi, n = narrowed(r, others, a.margin, a.min_rounds)
        rows.append(dict(r, loo_low=round(lo, 3), loo_high=round(hi, 3), loo_from=n, position=position(r)))
    out = {"margin": a.margin, "min_rounds": a.min_rounds, "model": summary(rows, "low", "high"),
           "leave_one_out": summary(rows, "loo_low", "loo_high"),
           "left_out": [r["id"] + " (" + ("not significant" if not r["significant"] else r["method"]) + ")"
                        for r in allr if r not in rounds],
           "rows": [{k: x[k] for k in ("id", "low", "high", "measured", "ci_low", "ci_high", "loo_low", "loo_high",
                                       "loo_from")} | {"position": None if x["position"] is None else
                                                       round(x["position"], 3)} for x in rows]}
    print("| round | model range | width | measured [95 % CI] | position | narrowed (LOO) | width | held |")
    print("|---|---|---|---|---|---|---|---|")
    for x in out["rows"]:
        held = "yes" if x["loo_low"] <= x["measured"] <= x["loo_high"] else "no"
        print(f"| {x['id']} | {x['low']:.2f}–{x['high']:.2f}× | {x['high'] / x['low']:.2f} | {x['measured']:.2f}× "
              f"[{x['ci_low']:.2f}, {x['ci_high']:.2f}] | {x['position'] if x['position'] is not None else '–'} | "
              f"{x['loo_low']:.2f}–{x['loo_high']:.2f}× (from {x['loo_from']}) | {x['loo_high'] / x['loo_low']:.2f} | {held} |")
    print(json.dumps({k: out[k] for k in ("margin", "model", "leave_one_out", "left_out")}, indent=1))
    if a.json:
        json.dump(out, open(a.json, "w"), indent=1)


if __name__ == "__main__":
    main()
