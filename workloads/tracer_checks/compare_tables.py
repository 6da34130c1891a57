"""Compares the kernel tables (goblin triage's kernel_table.json) of a torch.profiler trace and a
CUPTI-tracer trace of the same workload and window (issue 30): kernel names, category and family
time totals, the share of time in family "unknown", and how much kernel time has a CPU op.
Usage: compare_tables.py TORCH_kernel_table.json CUPTI_kernel_table.json  -> one JSON line.
"""
import json
import sys
from collections import defaultdict


def load(p):
    rows = [r for r in json.load(open(p)) if r.get("kind") == "kernel"]
    total = sum(r["time_us"] for r in rows) or 1.0
    cat, fam = defaultdict(float), defaultdict(float)
    for r in rows:
        cat[r["category"]] += r["time_us"]
        fam[r["family"]] += r["time_us"]
    with_op = sum(r["time_us"] * r.get("cpu_op_agreement", 0) for r in rows if r.get("cpu_op"))
    return {"rows": rows, "total": total, "cat": cat, "fam": fam, "names": {r["kernel"] for r in rows},
            "with_op_pct": 100.0 * with_op / total}


def pct(d, total):
    return {k: round(100.0 * v / total, 3) for k, v in sorted(d.items(), key=lambda kv: -kv[1])}


t, c = load(sys.argv[1]), load(sys.argv[2])
cat_t, cat_c = pct(t["cat"], t["total"]), pct(c["cat"], c["total"])
fam_t, fam_c = pct(t["fam"], t["total"]), pct(c["fam"], c["total"])
out = {
    "kernel_names": {"torch": len(t["names"]), "cupti": len(c["names"]), "common": len(t["names"] & c["names"]),
                     "only_torch": sorted(t["names"] - c["names"])[:5], "only_cupti": sorted(c["names"] - t["names"])[:5]},
    "category_pct": {"torch": cat_t, "cupti": cat_c},
    "category_max_abs_diff_pct_points": round(max(abs(cat_t.get(k, 0) - cat_c.get(k, 0)) for k in set(cat_t) | set(cat_c)), 3),
    "family_max_abs_diff_pct_points": round(max(abs(fam_t.get(k, 0) - fam_c.get(k, 0)) for k in set(fam_t) | set(fam_c)), 3),
    "unknown_family_pct": {"torch": fam_t.get("unknown", 0.0), "cupti": fam_c.get("unknown", 0.0)},
    "kernel_time_with_cpu_op_pct": {"torch": round(t["with_op_pct"], 2), "cupti": round(c["with_op_pct"], 2)},
    "kernel_time_us": {"torch": round(t["total"], 1), "cupti": round(c["total"], 1)},
}
print("COMPARE " + json.dumps(out))
