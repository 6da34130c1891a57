#!/usr/bin/env python3
"""Writes the classic AMD run folder from a real Kineto trace, for the figures in README.md:
torch_profile.json.gz (the trace itself), trace.csv (its kernels as rocprofv3 --kernel-trace
--output-format csv writes them, on the boot clock or the wall clock) and amd_smi.csv.

usage: three_file_run.py KINETO.json.gz AMD_SMI.csv OUT_DIR boot|epoch|hour [OTHER_KINETO]
  boot   rocprofv3 times on the boot clock (the trace's times minus 4.8e15 ns)
  epoch  rocprofv3 times on the wall clock (the trace's times plus its baseTimeNanoseconds)
  hour   the wall clock an hour later (the same program run twice)
  OTHER_KINETO: write trace.csv from this trace's kernels instead (a mismatched pair)
The same construction as src/trace/rocprof_pair_test.cpp."""
import csv, gzip, json, os, shutil, sys

kin, smi, out, mode = sys.argv[1:5]
src = sys.argv[5] if len(sys.argv) > 5 else kin
os.makedirs(out, exist_ok=True)
shutil.copy(kin, os.path.join(out, "torch_profile.json.gz"))
shutil.copy(smi, os.path.join(out, "amd_smi.csv"))
t = json.load(gzip.open(src))
base = int(t.get("baseTimeNanoseconds", 0))
shift = {"boot": -4_800_000_000_000_000, "epoch": base, "hour": base + 3600 * 10**9}[mode]
cols = ["Kind", "Agent_Id", "Queue_Id", "Stream_Id", "Thread_Id", "Dispatch_Id", "Kernel_Id", "Kernel_Name",
        "Correlation_Id", "Start_Timestamp", "End_Timestamp", "LDS_Block_Size", "Scratch_Size", "VGPR_Count",
        "Accum_VGPR_Count", "SGPR_Count", "Workgroup_Size_X", "Workgroup_Size_Y", "Workgroup_Size_Z",
        "Grid_Size_X", "Grid_Size_Y", "Grid_Size_Z"]
ks = sorted((e for e in t["traceEvents"] if e.get("ph") == "X" and e.get("cat") == "kernel"), key=lambda e: e["ts"])
with open(os.path.join(out, "trace.csv"), "w", newline="") as f:
    w = csv.writer(f, quoting=csv.QUOTE_NONNUMERIC)
    w.writerow(cols)
    for n, e in enumerate(ks, 1):
        s = round(e["ts"] * 1000) + shift + (n % 3 - 1) * 700
        w.writerow(["KERNEL_DISPATCH", "Agent 2", 1, 1, 4242, n, n, e["name"], n, s, s + round(e["dur"] * 1000),
                    0, 0, 8, 0, 16, 256, 1, 1, 1024, 1, 1])
print(f"{out}: {len(ks)} kernels, rocprofv3 clock {mode}")
