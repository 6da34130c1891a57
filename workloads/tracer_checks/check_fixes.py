"""Checks two tracer fixes on a recorded cupti trace (issue 30, bench/results/tracer, 2026-11-27):
- callback launch records (GOBLIN_CUPTI_KINDS=...,cb) hold each launch once: no correlation id
  carried by two runtime/driver API events (a driver call nested in a runtime call was recorded
  twice before the fix), and how many kernels have a launch record;
- the observer's list input types: how many cpu_ops carry ScalarList / TensorList in Input type.
Usage: check_fixes.py TRACE.json.gz  (prints one JSON line)
"""
import collections
import gzip
import json
import sys

d = json.load(gzip.open(sys.argv[1]))
ev = d.get("traceEvents", [])
api = collections.Counter()
kernels = linked = 0
types = collections.Counter()
ops = ops_typed = 0
for e in ev:
    c = e.get("cat")
    a = e.get("args") or {}
    if c in ("cuda_runtime", "cuda_driver"):
        api[a.get("correlation")] += 1
    elif c == "kernel":
        kernels += 1
    elif c == "cpu_op":
        ops += 1
        t = a.get("Input type")
        if t:
            ops_typed += 1
            for x in t:
                if x in ("ScalarList", "TensorList", "Scalar", ""):
                    types[x] += 1
for e in ev:
    if e.get("cat") == "kernel" and api.get((e.get("args") or {}).get("correlation"), 0) > 0:
        linked += 1
dup = sum(1 for k, n in api.items() if n > 1)
print(json.dumps({"trace": sys.argv[1], "api_events": sum(api.values()), "api_correlations": len(api),
                  "correlations_recorded_twice": dup, "kernels": kernels, "kernels_with_launch_record": linked,
                  "cpu_ops": ops, "cpu_ops_with_input_type": ops_typed, "list_and_other_types": dict(types),
                  "tracer": d.get("goblin_tracer", {}).get("kinds"), "shapes": d.get("goblin_tracer_shapes")}))
