#!/usr/bin/env python3
"""Synthetic many-rank jobs from the real 2-rank H200 DDP traces (docs/scale.md).

Every synthetic rank is a copy of a real rank with its timing perturbed: its clock shifted by a
random offset (up to --offset-us) and its whole timeline stretched by a random factor
(1 +- --jitter), so step times, collective durations and pre-arrival windows differ from rank to
rank while each rank stays a consistent trace. All ranks but one copy the WAITER (a rank that waits
inside the all-reduces for the other); one, --straggler, copies the STRAGGLER (the rank the
others wait for). The analysis must name that rank.

  traces:    Kineto traces (rank<R>.pt.trace.json.gz): distributedInfo rank / world size and the
             collectives' "Group size" / "Process Group Ranks" rewritten for N ranks.
  summaries: goblin rank summaries (rank<R>.summary.json.gz) made the same way from two real
             summaries (goblin summarize of the real traces): for reduce figures at 1,024 ranks
             without writing 1,024 traces.

  bench/scale/make_ranks.py traces examples/ddp_h200/straggler_data/rank0.pt.trace.json.gz \\
      examples/ddp_h200/straggler_data/rank1.pt.trace.json.gz --ranks 64 --straggler 37 -o /tmp/r64
  bench/scale/make_ranks.py summaries S/rank0.summary.json.gz S/rank1.summary.json.gz \\
      --ranks 1024 --straggler 613 -o /tmp/s1024
"""
import argparse
import gzip
import json
import os
import random


def perturbation(rng, args):
    return 1.0 + rng.uniform(-args.jitter, args.jitter), rng.uniform(-args.offset_us, args.offset_us)


def make_traces(args):
    # Each template is parsed once; a rank is a shallow copy with its own times (json.loads per
    # rank would cost three times as much).
    templates = []
    for path in (args.waiter, args.straggler_from):
        with gzip.open(path, "rt") as f:
            doc = json.load(f)
        events = doc["traceEvents"]
        t0 = min(e["ts"] for e in events if isinstance(e.get("ts"), (int, float)))
        templates.append((doc, events, t0))
    rng = random.Random(args.seed)
    os.makedirs(args.out, exist_ok=True)
    ranks_list = json.dumps(list(range(args.ranks)))
    comm_keys = ("Group size", "Process Group Ranks", "Rank")
    for r in range(args.ranks):
        doc, events, t0 = templates[1 if r == args.straggler else 0]
        scale, offset = perturbation(rng, args)
        out_events = []
        for e in events:
            e = dict(e)
            if isinstance(e.get("ts"), (int, float)):
                e["ts"] = round(t0 + (e["ts"] - t0) * scale + offset, 3)
            if isinstance(e.get("dur"), (int, float)):
                e["dur"] = round(e["dur"] * scale, 3)
            a = e.get("args")
            if isinstance(a, dict) and any(k in a for k in comm_keys):
                a = dict(a)
                if "Group size" in a:
                    a["Group size"] = args.ranks
                if "Process Group Ranks" in a:
                    a["Process Group Ranks"] = ranks_list
                if "Rank" in a:
                    a["Rank"] = r
                e["args"] = a
            out_events.append(e)
        out = dict(doc)
        out["traceEvents"] = out_events
        di = dict(doc.get("distributedInfo", {}))
        di["rank"], di["world_size"] = r, args.ranks
        di["pg_config"] = [dict(pg, pg_size=args.ranks, ranks=list(range(args.ranks))) for pg in di.get("pg_config", [])]
        out["distributedInfo"] = di
        path = os.path.join(args.out, f"rank{r}.pt.trace.json.gz")
        with open(path, "wb") as f:  # one dumps + one compress: json.dump's many small writes cost 2x
            f.write(gzip.compress(json.dumps(out, separators=(",", ":")).encode(), compresslevel=1))


ABSOLUTE = {"start_ns", "end_ns", "first_ns", "last_ns"}


def stretch(node, t0, scale, offset_ns):
    """Every time in a summary: absolute times moved, durations scaled (epoch base kept)."""
    if isinstance(node, dict):
        for k, v in node.items():
            if isinstance(v, (dict, list)):
                stretch(v, t0, scale, offset_ns)
            elif isinstance(v, int) and not isinstance(v, bool) and k.endswith("_ns") and k != "epoch_base_ns":
                node[k] = round(t0 + (v - t0) * scale + offset_ns) if k in ABSOLUTE else round(v * scale)
            elif k == "busbw_gbps" and isinstance(v, (int, float)):
                node[k] = round(v / scale, 3)
        if "category_ns" in node and isinstance(node["category_ns"], dict):
            node["category_ns"] = {c: round(v * scale) for c, v in node["category_ns"].items()}
    elif isinstance(node, list):
        for x in node:
            stretch(x, t0, scale, offset_ns)


def make_summaries(args):
    templates = []
    for path in (args.waiter, args.straggler_from):
        with gzip.open(path, "rt") as f:
            templates.append(f.read())
    rng = random.Random(args.seed)
    os.makedirs(args.out, exist_ok=True)
    for r in range(args.ranks):
        doc = json.loads(templates[1 if r == args.straggler else 0])
        scale, offset = perturbation(rng, args)
        p = doc["profile"]
        t0 = min([s["start_ns"] for s in p["steps"]] + [c["start_ns"] for c in p["collectives"]])
        stretch(doc, t0, scale, round(offset * 1000))
        p["rank"], p["world_size"], p["rank_from"] = r, args.ranks, "distributedInfo"
        p["label"] = f"synthetic/rank{r}.pt.trace.json.gz"
        p["files"] = [p["label"]]
        p["notes"] = []
        for c in p["collectives"]:
            c["group_size"] = args.ranks
        for g in doc.get("process_groups", []):
            g["size"] = args.ranks
        doc["source"] = p["label"]
        doc["host"] = f"node{r // args.ranks_per_node:04d}"
        path = os.path.join(args.out, f"rank{r}.summary.json.gz")
        with open(path, "wb") as f:
            f.write(gzip.compress(json.dumps(doc, separators=(",", ":")).encode(), compresslevel=6))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("kind", choices=["traces", "summaries"])
    ap.add_argument("waiter", help="the real rank every synthetic rank but one copies")
    ap.add_argument("straggler_from", help="the real rank the straggler copies")
    ap.add_argument("--ranks", type=int, required=True)
    ap.add_argument("--straggler", type=int, required=True)
    ap.add_argument("--seed", type=int, default=32)
    ap.add_argument("--jitter", type=float, default=0.005, help="timeline stretch, +- this fraction")
    ap.add_argument("--offset-us", type=float, default=500.0, help="clock offset, +- this many microseconds")
    ap.add_argument("--ranks-per-node", type=int, default=8, help="summaries: the host name of each rank")
    ap.add_argument("-o", "--out", required=True)
    args = ap.parse_args()
    if not 0 <= args.straggler < args.ranks:
        ap.error("--straggler must be a rank below --ranks")
    (make_traces if args.kind == "traces" else make_summaries)(args)


if __name__ == "__main__":
    main()
