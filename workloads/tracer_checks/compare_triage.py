"""goblin triage's findings on a torch.profiler trace and a cupti trace of the same workload, side
by side (issue 30, item 4): GPU time, each fuse pattern's occurrences and time share, each
overlap opportunity's kind and share, the top kernels' shares. Usage:
compare_triage.py torch_triage.json cupti_triage.json   (goblin triage ... --json outputs)"""
import json
import sys


def load(p):
    return json.load(open(p))["result"]


def fuse(r):
    out = {}
    for f in r["fuse_opportunities"]:
        k = (f["pattern"], f.get("scope", ""))
        o = out.setdefault(k, [0, 0.0])
        o[0] += f.get("occurrences", 0)
        o[1] += f.get("time_share_pct", 0.0)
    return out


def overlap(r):
    out = {}
    for f in r["top_overlap_opportunities"]:
        k = f.get("pattern") or f.get("kind") or f.get("title") or "?"
        out[k] = out.get(k, 0.0) + (f.get("time_share_pct") or f.get("share_pct") or 0.0)
    return out


t, c = load(sys.argv[1]), load(sys.argv[2])
print("gpu_op_time_us  torch %.1f  cupti %.1f  (%+.2f %%)" % (
    t["gpu_op_time_us"], c["gpu_op_time_us"], 100 * (c["gpu_op_time_us"] / t["gpu_op_time_us"] - 1)))
print("gpu_ops         torch %d  cupti %d" % (t["gpu_ops"], c["gpu_ops"]))
ft, fc = fuse(t), fuse(c)
print("fuse pattern (scope)                                   torch n / share %   cupti n / share %")
for k in sorted(set(ft) | set(fc)):
    a, b = ft.get(k, [0, 0.0]), fc.get(k, [0, 0.0])
    print("  %-52s %4d / %6.3f      %4d / %6.3f" % ((k[0] + " " + k[1])[:52], a[0], a[1], b[0], b[1]))
ot, oc = overlap(t), overlap(c)
print("overlap opportunity                 torch share %   cupti share %")
for k in sorted(set(ot) | set(oc)):
    print("  %-34s %8.3f        %8.3f" % (k[:34], ot.get(k, 0.0), oc.get(k, 0.0)))
print("top kernels (share %): torch", [round(k.get("share_pct", 0), 2) for k in t["top_kernels"][:5]],
      "cupti", [round(k.get("share_pct", 0), 2) for k in c["top_kernels"][:5]])
