#!/usr/bin/env python3
"""Extracts every distinct kernel name from tests/fixtures into fixture_kernel_names.tsv.gz
(source<TAB>name), the input of taxonomy_test's "classify every fixture kernel" test.
Sources: Kineto `kernel` X events; rocprof CSV kernel-name columns (kernel traces, counters,
stats, legacy timestamps/pmc); rocprofv3 JSON kernel_symbols; nsys CUPTI_ACTIVITY_KIND_KERNEL
demangled names; ncu CSV "Kernel Name". API-stat CSVs (hip_api_stats, copy_stats) are skipped:
their Name column holds API calls, not kernels.
Usage: extract_kernel_names.py FIXTURES_DIR OUT.tsv.gz"""
import csv, glob, gzip, json, os, sqlite3, sys

fx, out = sys.argv[1], sys.argv[2]
names = {}


def add(n, src):
    n = (n or "").strip().replace("\t", " ").replace("\n", " ")
    if n:
        names.setdefault(n, os.path.relpath(src, fx))


for f in glob.glob(f"{fx}/kineto/*"):
    op = gzip.open if f.endswith(".gz") else open
    try:
        d = json.load(op(f, "rt"))
    except Exception:
        continue
    ev = d["traceEvents"] if isinstance(d, dict) else d
    for e in ev:
        if isinstance(e, dict) and str(e.get("cat", "")).lower() == "kernel" and e.get("ph") == "X":
            add(e.get("name"), f)
SKIP = ("hip_api_stats", "hip_domain_stats", "hip_stats", "copy_stats")
for f in glob.glob(f"{fx}/rocprof/*.csv"):
    if any(s in f for s in SKIP):
        continue
    rows = list(csv.DictReader(open(f, newline="", errors="replace")))
    if not rows:
        continue
    for col in ("Kernel_Name", "KernelName", "kernel_name", "Name"):
        if col in rows[0]:
            for r in rows:
                add(r[col], f)
            break


def walk(o, f):
    if isinstance(o, dict):
        for k, v in o.items():
            if k == "kernel_symbols" and isinstance(v, list):
                for s in v:
                    if isinstance(s, dict):
                        add(s.get("formatted_kernel_name") or s.get("kernel_name"), f)
            else:
                walk(v, f)
    elif isinstance(o, list):
        for x in o:
            walk(x, f)


for f in glob.glob(f"{fx}/rocprof/*.json.gz"):
    walk(json.load(gzip.open(f, "rt")), f)
for f in glob.glob(f"{fx}/nsight/*.sqlite"):
    c = sqlite3.connect(f)
    for (n,) in c.execute(
        "select distinct s.value from CUPTI_ACTIVITY_KIND_KERNEL k join StringIds s on s.id=k.demangledName"
    ):
        add(n, f)
for f in glob.glob(f"{fx}/nsight/ncu*.csv"):
    rows = list(csv.reader(open(f, errors="replace")))
    if rows and "Kernel Name" in rows[0]:
        i = rows[0].index("Kernel Name")
        for r in rows[1:]:
            if len(r) > i:
                add(r[i], f)
with gzip.open(out, "wt") as o:
    for n, s in sorted(names.items(), key=lambda x: (x[1], x[0])):
        o.write(f"{s}\t{n}\n")
print(len(names), "names")
