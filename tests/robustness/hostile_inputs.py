"""The hostile inputs of tests/robustness/cases.json, built from a case's `inputs` specs
(run_cases.py runs goblin on them): each spec names a kind (a fixture changed by a transform, an
SQLite or gzip file damaged, an MCP session's requests, a nested document, ...) and make_input writes
the file into the case's working folder.
"""
import copy
import gzip
import json
import os
import shutil
import subprocess
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# ---- inputs ------------------------------------------------------------------------------------

def kineto(fixtures, name="h100_torch211_export_chrome_trace.json"):
    opener = gzip.open if name.endswith(".gz") else open
    with opener(os.path.join(fixtures, "kineto", name), "rt") as f:
        return json.load(f)


def gpu_events(d, cats=("kernel",)):
    return [e for e in d["traceEvents"] if e.get("cat") in cats]


def make_input(spec, work, fixtures):
    """Writes the input a case describes; returns its path."""
    kind = spec["kind"]
    path = os.path.join(work, spec.get("name", "input"))
    if kind == "text":
        data = spec["text"].encode(spec.get("encoding", "utf-8"))
    elif kind == "repeat":
        data = (spec.get("prefix", "") + spec["text"] * spec["count"] + spec.get("suffix", "")).encode()
    elif kind == "nested":
        d = spec["depth"]
        data = (spec.get("prefix", "") + spec["open"] * d + spec.get("middle", "") + spec["close"] * d +
                spec.get("suffix", "")).encode()
    elif kind == "yaml_bomb":
        w, n = spec["width"], spec["levels"]
        lines = ["batch_size: 8", "a0: &a0 [" + ",".join(['"lol"'] * w) + "]"]
        for i in range(1, n + 1):
            lines.append(f"a{i}: &a{i} [" + ",".join([f"*a{i - 1}"] * w) + "]")
        data = ("\n".join(lines) + "\n").encode()
    elif kind == "repo":  # a file of this repository (tests/robustness/secrets/...)
        return os.path.join(REPO, spec["path"])
    elif kind == "fixture":
        return os.path.join(fixtures, spec["path"])
    elif kind == "missing":
        return os.path.join(work, "does_not_exist.json")
    elif kind == "fifo":  # a named pipe fed by a writer process, as `<(cat FILE)` would be
        src = os.path.join(fixtures, spec["path"])
        os.mkfifo(path)
        writer = subprocess.Popen(["sh", "-c", 'cat "$1" > "$2"', "sh", src, path])
        spec["_writer"] = writer
        return path
    elif kind == "symlink":  # a link to a fixture, e.g. inside a directory under an MCP --root
        os.symlink(os.path.join(fixtures, spec["path"]), path)
        return path
    elif kind == "bare_fifo":  # a named pipe nobody ever writes to: a reader that opens it blocks
        os.mkfifo(path)
        return path
    elif kind == "link":  # a symbolic link to any target, as given ("/dev/zero", "." for a loop)
        os.symlink(spec["target"], path)
        return path
    elif kind == "transform":
        data = TRANSFORMS[spec["transform"]](fixtures, spec)
        if isinstance(data, str):
            data = data.encode()
    elif kind == "dir":
        os.makedirs(path, exist_ok=True)
        for sub in spec["files"]:
            s = dict(sub)
            src = make_input(s, path, fixtures)
            dst = os.path.join(path, s.get("name", os.path.basename(src)))
            if src != dst:
                shutil.copy(src, dst)
        return path
    else:
        raise ValueError("unknown input kind " + kind)
    with open(path, "wb") as f:
        f.write(data)
    return path


def t_kineto(fn):
    def run(fixtures, spec):
        d = kineto(fixtures, spec.get("fixture", "h100_torch211_export_chrome_trace.json"))
        fn(d)
        return json.dumps(d)
    return run


def neg_dur(d):
    for e in gpu_events(d):
        e["dur"] = -abs(e["dur"]) * 10


def same_corr(d):
    for e in d["traceEvents"]:
        a = e.get("args", {})
        if "correlation" in a:
            a["correlation"] = 1
        if "External id" in a:
            a["External id"] = 1


def same_ts(d):
    base = gpu_events(d)[0]
    extra = []
    for _ in range(20000):
        e = copy.deepcopy(base)
        e["dur"] = 1.0
        extra.append(e)
    d["traceEvents"] = [e for e in d["traceEvents"] if e.get("cat") != "kernel"] + extra


def no_gpu(d):
    d["traceEvents"] = [e for e in d["traceEvents"] if e.get("cat") not in ("kernel", "gpu_memcpy", "gpu_memset")]


def relative_clock(d):  # the same trace on a clock that starts at 0 (older Kineto, converted traces)
    t0 = min(e["ts"] for e in d["traceEvents"] if "ts" in e)
    for e in d["traceEvents"]:
        if "ts" in e:
            e["ts"] = e["ts"] - t0 + 1
    d.pop("baseTimeNanoseconds", None)


def two_days_earlier(d):  # the same trace as if recorded two days before
    d["baseTimeNanoseconds"] = int(d["baseTimeNanoseconds"]) - 2 * 86400 * 10**9


def rocprof_lines(fixtures):
    with open(os.path.join(fixtures, "rocprof", "rocprofv3_kernel_trace.csv"), encoding="utf-8") as f:
        return f.read().splitlines(keepends=True)


def rocprof_unclosed_quote(fixtures, spec):
    # A kernel name whose closing quote was lost: the field runs on into the rows after it.
    lines = rocprof_lines(fixtures)
    row = lines[1]
    at = row.index('"void')
    end = row.index('",', at + 1)
    lines[1] = row[:end] + row[end + 1:]
    return "".join(lines)


def rocprof_bom(fixtures, spec):
    return "\ufeff" + "".join(rocprof_lines(fixtures))


def rocprof_invalid_utf8(fixtures, spec):  # a kernel name with bytes that are not UTF-8
    return "".join(rocprof_lines(fixtures)).encode().replace(b"_kernel", b"\xff\xfe_kernel", 1)


def kineto_huge_name_gz(fixtures, spec):  # one 100 MiB kernel name; ~1 MB compressed
    d = kineto(fixtures, "h100_torch211_export_chrome_trace.json")
    gpu_events(d)[0]["name"] = "K" * (100 << 20)
    return gzip.compress(json.dumps(d).encode(), compresslevel=6)


def rocprof_unquoted(fixtures, spec):  # what pandas.to_csv writes: bare header names
    lines = rocprof_lines(fixtures)
    lines[0] = lines[0].replace('"', "")
    return "".join(lines)


def far_timestamps(d):  # Kineto ts of -9e15 and +9e15 us: int64 ns, but spans between them overflow
    ev = gpu_events(d)
    ev[0]["ts"] = -9e15
    ev[-1]["ts"] = 9e15


def instant_kernels(d):  # every kernel 1 ns long: FLOPs over 1 ns are far above any peak
    for e in gpu_events(d):
        e["dur"] = 0.001


def stray_step(d):  # a ProfilerStep range inside step 2 (a stray or hand-added annotation)
    steps = sorted((e for e in d["traceEvents"] if e.get("cat") == "user_annotation"
                    and e.get("name", "").startswith("ProfilerStep#")), key=lambda e: float(e["ts"]))
    s2 = steps[1]
    stray = dict(s2)
    stray["name"] = "ProfilerStep#99"
    stray["ts"] = float(s2["ts"]) + 0.1 * float(s2["dur"])
    stray["dur"] = 0.25 * float(s2["dur"])
    d["traceEvents"].append(stray)


def sqlite_sql(fixtures, spec):  # a copy of an SQLite fixture changed by spec["sql"]
    import sqlite3
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "db.sqlite")
        shutil.copy(os.path.join(fixtures, spec["path"]), path)
        db = sqlite3.connect(path)
        db.executescript(spec["sql"])
        db.commit()
        db.close()
        with open(path, "rb") as f:
            return f.read()


def nvidia_smi_memory_times(factor):  # memory.used [MiB] multiplied: more than the card holds
    def run(fixtures, spec):
        with open(os.path.join(fixtures, "telemetry", "nvidia_smi_h100_training.csv"), encoding="utf-8") as f:
            lines = f.read().splitlines(keepends=True)
        cols = [c.strip() for c in lines[0].split(",")]
        used = next(i for i, c in enumerate(cols) if c.startswith("memory.used"))
        out = [lines[0]]
        for l in lines[1:]:
            cells = l.rstrip("\n").split(",")
            if len(cells) > used:
                num, _, unit = cells[used].strip().partition(" ")
                cells[used] = " " + str(int(float(num) * factor)) + (" " + unit if unit else "")
            out.append(",".join(cells) + "\n")
        return "".join(out)
    return run


ROCPD_FIXTURE = os.path.join(REPO, "tests", "fixtures", "rocpd", "rocprofv3_gfx950_from_json.rocpd.db.gz")


def rocpd_sql(fixtures, spec):  # the committed rocpd database (gzip) changed by spec["sql"]
    import sqlite3
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "db.sqlite")
        with gzip.open(ROCPD_FIXTURE, "rb") as src, open(path, "wb") as dst:
            shutil.copyfileobj(src, dst)
        db = sqlite3.connect(path)
        db.executescript(spec["sql"])
        db.commit()
        db.close()
        with open(path, "rb") as f:
            return f.read()


def rocpd_truncated(fixtures, spec):
    with gzip.open(ROCPD_FIXTURE, "rb") as f:
        data = f.read()
    return data[: len(data) // 3]


def sqlite_truncated(fixtures, spec):
    with open(os.path.join(fixtures, "nsight", "nsys_2026_export.sqlite"), "rb") as f:
        data = f.read()
    return data[: len(data) // 3]


def sqlite_corrupt_page(fixtures, spec):
    with open(os.path.join(fixtures, "nsight", "nsys_2026_export.sqlite"), "rb") as f:
        data = bytearray(f.read())
    page = int.from_bytes(data[16:18], "big") or 65536
    # Page 1 holds the schema b-tree root after the 100-byte header: overwrite its cell area.
    for i in range(100, min(page, len(data))):
        data[i] = 0xA5
    return bytes(data)


def ncu_sol(value):
    def run(fixtures, spec):
        with open(os.path.join(fixtures, "nsight", "ncu_raw_h100_full.csv"), encoding="utf-8") as f:
            text = f.read()
        lines = text.splitlines(keepends=True)
        hdr = next(i for i, l in enumerate(lines) if l.startswith('"ID",'))
        cols = next(iter(__import__("csv").reader([lines[hdr]])))
        sm = cols.index("sm__throughput.avg.pct_of_peak_sustained_elapsed")
        mem = cols.index("gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed")
        out = lines[: hdr + 2]
        import csv as _csv
        import io
        for l in lines[hdr + 2:]:
            row = next(iter(_csv.reader([l])))
            if len(row) > max(sm, mem):
                row[sm] = value
                row[mem] = value
                buf = io.StringIO()
                _csv.writer(buf, quoting=_csv.QUOTE_ALL, lineterminator="\n").writerow(row)
                l = buf.getvalue()
            out.append(l)
        return "".join(out)
    return run


def metrics_json(step_time):
    def run(fixtures, spec):
        return json.dumps({"ok": True, "error": None, "result": {
            "step_time_s": step_time, "gpu_util_pct": 50.0, "tokens_per_sec": None,
            "waste_budget": {"useful_gpu": 0.0, "step_time_s": step_time}, "warnings": []}})
    return run


def patch_json(fixtures, spec):
    return json.dumps({"ok": True, "error": None, "result": {
        "new_config": {"model_name": "m"}, "rationale": [], "expected_speedup_low": None,
        "expected_speedup_high": None, "edits": {}, "diff": ""}})


JAX_FIXTURE = os.path.join(REPO, "tests", "fixtures", "jax", "transformer.trace.json.gz")


def jax_events(fn):  # the committed JAX trace (tests/fixtures/jax), its events changed by fn
    def run(fixtures, spec):
        with gzip.open(JAX_FIXTURE, "rb") as f:
            d = json.load(f)
        fn(d["traceEvents"])
        return json.dumps(d).encode()
    return run


def jax_far_times(events):  # every complete event at ts 1e300 us: past any int64 ns clock
    for e in events:
        if e.get("ph") == "X":
            e["ts"] = 1e300


def jax_unnamed(events):  # the process/thread names removed: GPU work looks like host work
    events[:] = [e for e in events if e.get("ph") != "M"]


def jax_truncated(fixtures, spec):
    with gzip.open(JAX_FIXTURE, "rb") as f:
        data = f.read()
    return data[: len(data) // 2]


def gzip_truncated(fixtures, spec):
    with open(os.path.join(fixtures, "kineto", "h100_llama_bf16_sdpa_w4.json.gz"), "rb") as f:
        data = f.read()
    return data[: len(data) // 2]


def mcp_hostile(fixtures, spec):
    init = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}
    deep = '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"info","arguments":' + "[" * 100000 + "]" * 100000 + "}}"
    return "\n".join([json.dumps(init), deep, "{not json", json.dumps({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
                      "params": {"name": "parse_config", "arguments": {"file_path": "bomb.yaml"}}})]) + "\n"


def mcp_depth_calls(fixtures, spec):
    """Calls that name directories inside the root whose entries lead out of it or block."""
    init = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}
    calls = [json.dumps(init)]
    for i, (tool, path) in enumerate([("triage", "run"), ("metrics", "run"), ("info", "fifo_run"),
                                      ("metrics", "fifo_run")]):
        calls.append(json.dumps({"jsonrpc": "2.0", "id": 10 + i, "method": "tools/call",
                                 "params": {"name": tool, "arguments": {"path": path}}}))
    return "\n".join(calls) + "\n"


MCP_INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}


def mcp_trap_calls(fixtures, spec):
    """Every file tool on a FIFO nobody writes, a link to /dev/zero and a directory link loop
    inside the root, then a ping: each is refused at once, the server answers the ping."""
    calls = [json.dumps(MCP_INIT)]
    n = 10
    for path in ("pipe.json", "zero.json", "loop/up/loop/up/pipe.json", "cycle.json"):
        for tool, arg in (("info", "path"), ("triage", "path"), ("metrics", "path"), ("roofline", "path"),
                          ("ranks", "path"), ("breakdown", "path"), ("diagnose", "ncu_csv"),
                          ("parse_config", "file_path")):
            n += 1
            calls.append(json.dumps({"jsonrpc": "2.0", "id": n, "method": "tools/call",
                                     "params": {"name": tool, "arguments": {arg: path}}}))
    calls.append(json.dumps({"jsonrpc": "2.0", "id": 99, "method": "ping"}))
    return "\n".join(calls) + "\n"


def mcp_cancel_flood(fixtures, spec):
    """notifications/cancelled for ids the server never saw, each distinct and long; then a ping."""
    pad = "x" * spec["id_bytes"]
    lines = [json.dumps(MCP_INIT)]
    lines += ['{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"%s%d"}}' % (pad, i)
              for i in range(spec["count"])]
    lines.append(json.dumps({"jsonrpc": "2.0", "id": 99, "method": "ping"}))
    return "\n".join(lines) + "\n"


def mcp_live_call(fixtures, spec):
    """A live profile_run of a config (the stand-in workload, told by the case's env to hang)."""
    config = {"source_file": "train.yaml", "model_name": "standin", "precision": "fp32", "batch_size": 8,
              "seq_len": 1024}
    return "\n".join([json.dumps(MCP_INIT), json.dumps({
        "jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "profile_run", "arguments": {"config": config, "steps": 3}}})]) + "\n"


def python_nested_calls(fixtures, spec):
    n = spec["depth"]
    return "import torch\nx = " + "DataLoader(" * n + "1" + ")" * n + "\n"


# Secrets a workload wrote into its own trace's metadata: a W&B key, an hf_ token in prose, a
# recorded command line and argv with credential flags, an env dict, a JWT.
SECRET_METADATA = {
    "wandb_api_key": "1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b",
    "note": "login with hf_SECRETaaaaBBBBccccDDDDeeeeFFFF1234 then run",
    "command_line": "python train.py --aws_secret_access_key wJalrXUtnFEMIK7MDENGbPxRfiCYSECRETKEY01 --password hunter2-Correct",
    "argv": ["train.py", "--api-key", "QWERTYsecret12345"],
    "env": {"PGPASSWORD": "pgS3cretValue99"},
    "session": "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
}


def secret_metadata(d):
    d.update(SECRET_METADATA)


def env_lines(fixtures, spec):
    return "".join(f"VAR_{i}=value{i}\n" for i in range(spec["count"]))


TRANSFORMS = {
    "kineto_negative_duration": t_kineto(neg_dur),
    "kineto_same_correlation": t_kineto(same_corr),
    "kineto_same_timestamp": t_kineto(same_ts),
    "kineto_no_gpu": t_kineto(no_gpu),
    "kineto_relative_clock": t_kineto(relative_clock),
    "kineto_two_days_earlier": t_kineto(two_days_earlier),
    "rocprof_unclosed_quote": rocprof_unclosed_quote,
    "rocprof_bom": rocprof_bom,
    "rocprof_unquoted_header": rocprof_unquoted,
    "rocprof_invalid_utf8": rocprof_invalid_utf8,
    "kineto_huge_name_gz": kineto_huge_name_gz,
    "kineto_far_timestamps": t_kineto(far_timestamps),
    "kineto_instant_kernels": t_kineto(instant_kernels),
    "kineto_stray_step": t_kineto(stray_step),
    "sqlite_sql": sqlite_sql,
    "nvidia_smi_memory_x64": nvidia_smi_memory_times(64),
    "sqlite_truncated": sqlite_truncated,
    "rocpd_sql": rocpd_sql,
    "rocpd_truncated": rocpd_truncated,
    "sqlite_corrupt_page": sqlite_corrupt_page,
    "ncu_sol_negative": ncu_sol("-50"),
    "ncu_sol_nan": ncu_sol("nan"),
    "metrics_tiny_step": metrics_json(5e-324),
    "metrics_normal_step": metrics_json(0.25),
    "patch_json": patch_json,
    "gzip_truncated": gzip_truncated,
    "jax_far_times": jax_events(jax_far_times),
    "jax_unnamed": jax_events(jax_unnamed),
    "jax_truncated": jax_truncated,
    "mcp_hostile": mcp_hostile,
    "mcp_depth_calls": mcp_depth_calls,
    "mcp_trap_calls": mcp_trap_calls,
    "mcp_cancel_flood": mcp_cancel_flood,
    "mcp_live_call": mcp_live_call,
    "python_nested_calls": python_nested_calls,
    "env_lines": env_lines,
    "kineto_secret_metadata": t_kineto(secret_metadata),
}
