"""The simulated ROCm host: what the stand-ins in tests/sim_rocm/bin print, from one manifest.

$GOBLIN_SIM_ROCM_HOST names the manifest (a path, or mi300x / mi355x for hosts/<name>.json). The
manifest says which GPU the host has (market name, gfx target, CUs, memory), the ROCm and driver
versions, the telemetry readings, and which real recorded outputs under tests/fixtures the tools
replay. Each writer below cites the source of the tool whose output shape it copies. Nothing here
is read by goblin itself: tests put tests/sim_rocm/bin first on PATH, and goblin runs these
programs exactly as it runs the real ones.
"""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))


def manifest():
    name = os.environ.get("GOBLIN_SIM_ROCM_HOST", "mi300x")
    path = name if os.path.sep in name or name.endswith(".json") else os.path.join(HERE, "hosts", name + ".json")
    try:
        with open(path) as f:
            m = json.load(f)
    except (OSError, ValueError) as e:
        sys.stderr.write("simulated ROCm host: cannot read manifest %s: %s\n" % (path, e))
        sys.exit(2)
    m["_path"] = path
    return m


def recorded(m, key):
    """Absolute path of a recorded output the manifest points at (None when it has none)."""
    rel = m.get("recorded", {}).get(key)
    return os.path.join(REPO, rel) if rel else None


# ---- rocminfo ------------------------------------------------------------------------------------
# Shape: ROCm/rocminfo rocminfo.cc (printLabelStr: two-space indent, label padded to 25 columns;
# "*******" / "Agent N" / "*******" around each agent; CPU agents first). The GPU agent's values are
# a real MI300X's (quoted in public setup guides: Name gfx942, Chip ID 29857(0x74a1), Compute Unit
# 304, SIMDs per CU 4, Shader Engines 32, Max Clock Freq. 2100).
def _row(label, value, indent=2):
    return "%s%-25s%s" % (" " * indent, label + ":", value)


def rocminfo(m):
    g = m["gpu"]
    out = ["ROCk module version %s is loaded" % m["amdgpu_driver"], "=====================", "HSA System Attributes",
           "=====================", "Runtime Version:         1.18", "Runtime Ext Version:     1.11",
           "System Timestamp Freq.:  1000.000000MHz", "Machine Model:           LARGE",
           "System Endianness:       LITTLE", "", "==========", "HSA Agents", "==========",
           "*******", "Agent 1", "*******",
           _row("Name", "AMD EPYC 9454 48-Core Processor"), _row("Marketing Name", "AMD EPYC 9454 48-Core Processor"),
           _row("Vendor Name", "CPU"), _row("Device Type", "CPU"), _row("Compute Unit", 96),
           "*******", "Agent 2", "*******",
           _row("Name", g["gfx"]), _row("Uuid", g["uuid"]), _row("Marketing Name", g["market_name"]),
           _row("Vendor Name", "AMD"), _row("Feature", "KERNEL_DISPATCH"), _row("Profile", "BASE_PROFILE"),
           _row("Node", 1), _row("Device Type", "GPU"),
           _row("Chip ID", "%d(0x%x)" % (g["chip_id"], g["chip_id"])), _row("Cacheline Size", "64(0x40)"),
           _row("Max Clock Freq. (MHz)", g["max_clock_mhz"]), _row("Compute Unit", g["compute_units"]),
           _row("SIMDs per CU", g["simds_per_cu"]), _row("Shader Engines", g["shader_engines"]),
           _row("Wavefront Size", "64(0x40)"), _row("Workgroup Max Size", "1024(0x400)"),
           "  ISA Info:", "    ISA 1",
           _row("Name", "amdgcn-amd-amdhsa--%s:sramecc+:xnack-" % g["gfx"], 6),
           "*** Done ***"]
    return "\n".join(out) + "\n"


# ---- amd-smi ---------------------------------------------------------------------------------------
# Shapes: ROCm/amdsmi amdsmi_cli/amdsmi_logger.py and amdsmi_commands.py. Human output: "GPU: N"
# then each group upper-case and indented four spaces per level; --json: a list of one object per
# GPU ({"gpu": N, "asic": {...}}); --csv: csv.DictWriter, so CRLF line ends, the first column
# "gpu", "timestamp" (epoch seconds) first under --watch, values without units; --watch prints the
# banner "'CTRL' + 'C' to stop watching output:" once and the header again before each iteration.
def _static(m):
    g = m["gpu"]
    return {
        "asic": {"market_name": g["market_name"], "vendor_id": "0x1002", "vendor_name": "Advanced Micro Devices Inc. [AMD/ATI]",
                 "device_id": g["device_id"], "rev_id": "0x00", "asic_serial": "0x0000000000000000",
                 "oam_id": 0, "num_compute_units": g["compute_units"], "target_graphics_version": g["gfx"]},
        "driver": {"name": "amdgpu", "version": m["amdgpu_driver"]},
        "vram": {"type": "HBM", "vendor": "N/A", "size": {"value": g["vram_mib"], "unit": "MB"}},
    }


def _human(obj, indent):
    lines = []
    for k, v in obj.items():
        if isinstance(v, dict) and set(v) == {"value", "unit"}:
            lines.append("%s%s: %s %s" % (" " * indent, k.upper(), v["value"], v["unit"]))
        elif isinstance(v, dict):
            lines.append("%s%s:" % (" " * indent, k.upper()))
            lines.extend(_human(v, indent + 4))
        else:
            lines.append("%s%s: %s" % (" " * indent, k.upper(), v))
    return lines


def _metric_row(m):
    t = m["telemetry"]
    g = m["gpu"]
    # `amd-smi metric --usage --power --clock --temperature --mem-usage`: the keys of those groups,
    # flattened as amdsmi_logger does (clock: gfx_N_clk / mem_N_clk; mem_usage: *_vram in MB).
    return {"gpu": 0, "gfx_activity": t["gfx_activity"], "umc_activity": t["umc_activity"], "mm_activity": "N/A",
            "socket_power": t["socket_power"], "gfx_voltage": "N/A", "soc_voltage": "N/A", "mem_voltage": "N/A",
            "throttle_status": "N/A", "power_management": "ENABLED", "gfx_0_clk": t["gfx_0_clk"],
            "mem_0_clk": t["mem_0_clk"], "edge": t["edge"], "hotspot": t["hotspot"], "mem": t["mem"],
            "total_vram": g["vram_mib"], "used_vram": t["used_vram_mib"], "free_vram": g["vram_mib"] - t["used_vram_mib"]}


def _monitor_row(m):
    t = m["telemetry"]
    g = m["gpu"]
    return {"gpu": 0, "power_usage": t["socket_power"], "hotspot_temperature": t["hotspot"],
            "memory_temperature": t["mem"], "gfx": t["gfx_activity"], "gfx_clock": t["gfx_0_clk"],
            "mem": t["umc_activity"], "mem_clock": t["mem_0_clk"], "vram_used": t["used_vram_mib"],
            "vram_total": g["vram_mib"]}


def _csv_line(values):
    out = []
    for v in values:
        s = str(v)
        out.append('"%s"' % s.replace('"', '""') if ("," in s or '"' in s) else s)
    return ",".join(out) + "\r\n"


def amd_smi(m, argv):
    import time
    if not argv or argv[0] in ("-h", "--help"):
        sys.stdout.write("usage: amd-smi [-h] {version,list,static,metric,monitor} ...\n")
        return 0
    verb, rest = argv[0], argv[1:]
    as_json, as_csv = "--json" in rest, "--csv" in rest
    watch = None
    for flag in ("-w", "--watch"):
        if flag in rest:
            watch = float(rest[rest.index(flag) + 1])
    iterations = None
    for flag in ("-W", "--watch_time"):
        if flag in rest:
            iterations = max(1, int(float(rest[rest.index(flag) + 1]) / (watch or 1)))
    if verb == "version":
        sys.stdout.write("AMDSMI Tool: %s | AMDSMI Library version: %s | ROCm version: %s | amdgpu version: %s\n"
                         % (m["amdsmi_version"], m["amdsmi_version"], m["rocm_version"], m["amdgpu_driver"]))
        return 0
    if verb == "list":
        g = m["gpu"]
        sys.stdout.write("GPU: 0\n    BDF: 0000:05:00.0\n    UUID: %s\n    KFD_ID: 1\n    NODE_ID: 1\n" % g["uuid"])
        return 0
    if verb == "static":
        s = _static(m)
        groups = [k for k in ("asic", "driver", "vram") if "--" + k in rest] or list(s)
        obj = {k: s[k] for k in groups}
        if as_json:
            sys.stdout.write(json.dumps([dict({"gpu": 0}, **obj)], indent=4) + "\n")
        elif as_csv:
            flat = {"gpu": 0}
            for grp in obj.values():
                for k, v in grp.items():
                    flat[k] = v["value"] if isinstance(v, dict) and "value" in v else v
            sys.stdout.write(_csv_line(flat) + _csv_line(flat.values()))
        else:
            sys.stdout.write("\n".join(["GPU: 0"] + _human(obj, 4)) + "\n\n")
        return 0
    if verb not in ("metric", "monitor"):
        sys.stderr.write("amd-smi: simulated host does not offer '%s'\n" % verb)
        return 2
    row = _metric_row(m) if verb == "metric" else _monitor_row(m)
    if watch:
        sys.stdout.write("'CTRL' + 'C' to stop watching output:\n")
    n = 0
    while True:
        r = dict(row)
        if watch:
            r = dict({"timestamp": int(time.time())}, **r)
        if as_json:
            sys.stdout.write(json.dumps([r], indent=4) + "\n")
        elif as_csv:
            sys.stdout.write(_csv_line(r) + _csv_line(r.values()))
            if watch:
                sys.stdout.write("\r\n")
        else:
            sys.stdout.write("\n".join(["GPU: 0"] + ["    %s: %s" % (k.upper(), v) for k, v in r.items() if k != "gpu"]) + "\n")
        sys.stdout.flush()
        n += 1
        if not watch or (iterations and n >= iterations):
            return 0
        time.sleep(watch)


# ---- rocm-smi --------------------------------------------------------------------------------------
# The concise table is replayed from a real recording (the manifest's recorded.rocm_smi; shape from
# ROCm/rocm_smi_lib python_smi_tools/rocm_smi.py showAllConcise). --showproductname and
# --showdriverversion print rocm_smi.py's "GPU[0]\t\t: key: value" lines.
def rocm_smi(m, argv):
    g = m["gpu"]
    if "--showproductname" in argv:
        sys.stdout.write("GPU[0]\t\t: Card Series: \t\t%s\nGPU[0]\t\t: Card Model: \t\t%s\nGPU[0]\t\t: GFX Version: \t\t%s\n"
                         % (g["market_name"], g["device_id"], g["gfx"]))
        return 0
    if "--showdriverversion" in argv:
        sys.stdout.write("Driver version: %s\n" % m["amdgpu_driver"])
        return 0
    with open(recorded(m, "rocm_smi")) as f:
        sys.stdout.write(f.read())
    return 0


# ---- rocprofv3 -------------------------------------------------------------------------------------
# Runs the command it wraps, then writes what the rocprofiler-sdk tool library would have written
# for it. Layout: -d DIR (default ".") + -o FILE (default "%hostname%/%pid%", rocprofv3 I/O options:
# https://rocm.docs.amd.com/projects/rocprofiler-sdk/en/latest/how-to/rocprofv3-io-options.html;
# the recorded gfx950 JSON's metadata.config says raw_output_file "%hostname%/%pid%"), each file
# <pid>_<domain>.csv / <pid>_results.json. Columns of kernel_trace.csv:
# ROCm/rocm-systems projects/rocprofiler-sdk/source/lib/output/generateCSV.cpp (ROCm 7.x: Kind,
# Agent_Id, Queue_Id, Stream_Id, Thread_Id, Dispatch_Id, Kernel_Id, Kernel_Name, Correlation_Id,
# Start_Timestamp, End_Timestamp, LDS_Block_Size, Scratch_Size, VGPR_Count, Accum_VGPR_Count,
# SGPR_Count, Workgroup_Size_X..Z, Grid_Size_X..Z; strings quoted, numbers bare, CLOCK_BOOTTIME ns,
# Grid_Size in work-items). JSON: rocprofv3-schema.json ("rocprofiler-sdk-tool": metadata, agents,
# kernel_symbols, buffer_records.kernel_dispatch), agents copied from a real gfx950 recording.
# The dispatches come from the workload: a real rocprofv3 intercepts them in the HSA runtime; the
# stand-in workload (tests/sim_rocm/workload.py) appends each one it "launches" to the file named
# by GOBLIN_SIM_ROCPROF_DISPATCHES, which this wrapper sets, as one JSON line.
KERNEL_TRACE_COLUMNS = ["Kind", "Agent_Id", "Queue_Id", "Stream_Id", "Thread_Id", "Dispatch_Id", "Kernel_Id",
                        "Kernel_Name", "Correlation_Id", "Start_Timestamp", "End_Timestamp", "LDS_Block_Size",
                        "Scratch_Size", "VGPR_Count", "Accum_VGPR_Count", "SGPR_Count", "Workgroup_Size_X",
                        "Workgroup_Size_Y", "Workgroup_Size_Z", "Grid_Size_X", "Grid_Size_Y", "Grid_Size_Z"]
TRACE_FLAGS = {"--kernel-trace", "--memory-copy-trace", "--hip-trace", "--hip-runtime-trace", "--hsa-trace",
               "--sys-trace", "--runtime-trace", "--marker-trace", "--rccl-trace", "--memory-allocation-trace",
               "--stats", "-s", "--scratch-memory-trace"}


def _q(s):
    return '"%s"' % str(s).replace('"', '""')


def _expand(pattern, pid, hostname):
    return pattern.replace("%hostname%", hostname).replace("%pid%", str(pid)).replace("%p", str(pid))


def rocprofv3(m, argv):
    import socket
    import subprocess
    import tempfile
    if "--version" in argv:
        sys.stdout.write("rocprofv3 (rocprofiler-sdk) for ROCm %s\n" % m["rocm_version"])
        return 0
    if "--" not in argv:
        sys.stderr.write("rocprofv3: error: no application given (rocprofv3 [options] -- <application>)\n")
        return 1
    cut = argv.index("--")
    opts, cmd = argv[:cut], argv[cut + 1:]
    out_dir, out_file, formats, i = ".", "%hostname%/%pid%", [], 0
    while i < len(opts):
        a = opts[i]
        if a in ("-d", "--output-directory"):
            out_dir, i = opts[i + 1], i + 2
        elif a in ("-o", "--output-file"):
            out_file, i = opts[i + 1], i + 2
        elif a in ("-f", "--output-format"):
            i += 1
            while i < len(opts) and not opts[i].startswith("-"):
                formats.append(opts[i])
                i += 1
        elif a in TRACE_FLAGS or a.startswith("--pmc"):
            i += 1
        else:
            sys.stderr.write("rocprofv3: error: unrecognized arguments: %s\n" % a)
            return 2
    formats = formats or ["rocpd"]  # ROCm 7.0: rocpd is the default output format
    if "rocpd" in formats and int(m["rocm_version"].split(".")[0]) < 7:
        sys.stderr.write("rocprofv3: error: argument -f/--output-format: invalid choice: 'rocpd' "
                         "(choose from 'csv', 'json', 'pftrace', 'otf2')\n")  # rocpd arrived in ROCm 7.0
        return 2
    kernel_trace = any(a in opts for a in ("--kernel-trace", "--sys-trace", "--runtime-trace"))
    fd, dispatches = tempfile.mkstemp(prefix="sim_rocprof_", suffix=".jsonl")
    os.close(fd)
    env = dict(os.environ)
    # What rocprofv3 gives its child (the tool library reads these); the last is the stand-in's channel.
    env.update({"ROCPROF_KERNEL_TRACE": "1" if kernel_trace else "0", "ROCPROF_OUTPUT_PATH": out_dir,
                "ROCPROF_OUTPUT_FILE_NAME": out_file, "ROCPROF_OUTPUT_FORMAT": ",".join(formats),
                "GOBLIN_SIM_ROCPROF_DISPATCHES": dispatches})
    try:
        proc = subprocess.Popen(cmd, env=env)
    except OSError as e:
        sys.stderr.write("rocprofv3: cannot execute %s: %s\n" % (cmd[0] if cmd else "", e))
        os.unlink(dispatches)
        return 127
    rc = proc.wait()
    rows = []
    with open(dispatches) as f:
        for line in f:
            if line.strip():
                rows.append(json.loads(line))
    os.unlink(dispatches)
    drop = int(os.environ.get("GOBLIN_SIM_ROCPROF_DROP", "0") or 0)  # lost records, for the cross-check
    if drop:
        rows = rows[:max(0, len(rows) - drop)]
    hostname = m.get("hostname") or socket.gethostname()
    base = os.path.join(out_dir, _expand(out_file, proc.pid, hostname))
    os.makedirs(os.path.dirname(base) or ".", exist_ok=True)
    if kernel_trace and "csv" in formats:
        _write_kernel_trace_csv(base + "_kernel_trace.csv", rows, proc.pid)
    if kernel_trace and "json" in formats:
        _write_results_json(m, base + "_results.json", rows, proc.pid, cmd, out_dir, out_file)
    if kernel_trace and "rocpd" in formats:
        _write_rocpd(m, base + "_results.db", rows, proc.pid, cmd, out_dir, out_file)
    return rc if rc >= 0 else 128 - rc


def _kernel_ids(rows):
    ids = {}
    for r in rows:
        ids.setdefault(r["name"], len(ids) + 1)
    return ids


def _write_kernel_trace_csv(path, rows, pid):
    ids = _kernel_ids(rows)
    with open(path, "w") as f:
        f.write(",".join(_q(c) for c in KERNEL_TRACE_COLUMNS) + "\n")
        for n, r in enumerate(rows, 1):
            gx, gy, gz = r["grid"]
            bx, by, bz = r["block"]
            # Grid_Size counts work-items (HSA), Kineto's grid counts workgroups.
            f.write(",".join([_q("KERNEL_DISPATCH"), _q("Agent 1"), "1", "1", str(pid), str(n), str(ids[r["name"]]),
                              _q(r["name"]), str(r["correlation"]), str(r["start_ns"]), str(r["end_ns"]), "0", "0",
                              "128", "0", "96", str(bx), str(by), str(bz), str(gx * bx), str(gy * by),
                              str(gz * bz)]) + "\n")


def _results_doc(m, rows, pid, cmd, out_dir, out_file):
    """rocprofv3's JSON document of the run (rocprofv3-schema.json), from which rocpd is written too."""
    with open(recorded(m, "rocprofv3_agents")) as f:
        rec = json.load(f)
    g = m["gpu"]
    cpu, gpu = dict(rec["cpu_agent"]), dict(rec["gpu_agent"])
    gpu.update({"name": g["gfx"], "product_name": g["market_name"], "model_name": g["market_name"],
                "cu_count": g["compute_units"], "gfx_target_version": g["gfx_target_version"],
                "device_id": g["chip_id"], "max_engine_clk_fcompute": g["max_clock_mhz"]})
    ids = _kernel_ids(rows)
    symbols = [{"size": 88, "kernel_id": 0, "code_object_id": 0, "kernel_name": "", "formatted_kernel_name": "0",
                "demangled_kernel_name": "0", "truncated_kernel_name": "0"}]
    for name, kid in ids.items():
        symbols.append({"size": 88, "kernel_id": kid, "code_object_id": 1, "kernel_name": name + ".kd",
                        "formatted_kernel_name": name, "demangled_kernel_name": name, "truncated_kernel_name": name,
                        "sgpr_count": 96, "arch_vgpr_count": 128, "accum_vgpr_count": 0, "group_segment_size": 0,
                        "private_segment_size": 0})
    disp = []
    for n, r in enumerate(rows, 1):
        gx, gy, gz = r["grid"]
        bx, by, bz = r["block"]
        disp.append({"size": 184, "kind": 11, "operation": 2, "thread_id": pid,
                     "correlation_id": {"internal": r["correlation"], "external": 0},
                     "start_timestamp": r["start_ns"], "end_timestamp": r["end_ns"],
                     "dispatch_info": {"size": 72, "agent_id": gpu["id"], "queue_id": {"handle": 1},
                                       "kernel_id": ids[r["name"]], "dispatch_id": n, "private_segment_size": 0,
                                       "group_segment_size": 0, "workgroup_size": {"x": bx, "y": by, "z": bz},
                                       "grid_size": {"x": gx * bx, "y": gy * by, "z": gz * bz}},
                     "stream_id": {"handle": 1}})
    meta = dict(rec["metadata"])
    meta.update({"pid": pid, "command": cmd,
                 "init_time": rows[0]["start_ns"] if rows else 0, "fini_time": rows[-1]["end_ns"] if rows else 0})
    meta["node"] = dict(meta["node"], hostname=m.get("hostname", "sim"))
    meta["config"] = dict(meta["config"], output_path=out_dir, raw_output_file=out_file, csv_output=False,
                          json_output=True)
    doc = {"rocprofiler-sdk-tool": [{"metadata": meta, "agents": [cpu, gpu], "counters": [], "strings": {},
                                     "code_objects": [], "kernel_symbols": symbols, "host_functions": [],
                                     "callback_records": {}, "buffer_records": {"kernel_dispatch": disp}}]}
    return doc


def _write_results_json(m, path, rows, pid, cmd, out_dir, out_file):
    with open(path, "w") as f:
        json.dump(_results_doc(m, rows, pid, cmd, out_dir, out_file), f)


# rocpd: rocprofiler-sdk's writer (source/lib/output/generateRocpd.cpp) fills the tables of the
# rocpd DDL; tools/rocpd_from_rocprofv3_json.py fills them the same way from the JSON document, and
# the schema is taken from a database built from the official DDL (the manifest's rocpd_schema).
def _write_rocpd(m, path, rows, pid, cmd, out_dir, out_file):
    sys.path.insert(0, os.path.join(REPO, "tools"))
    import rocpd_from_rocprofv3_json as rocpd
    ddl, views = rocpd.ddl_from_database(recorded(m, "rocpd_schema"))
    rocpd.write_database(_results_doc(m, rows, pid, cmd, out_dir, out_file), path, ddl, views)


# ---- rocprof-compute -------------------------------------------------------------------------------
# `rocprof-compute profile -n NAME [-p PATH] -- CMD`: runs CMD, then leaves the manifest's recorded
# rocprofiler-compute database (a real MI350 one, tests/fixtures/rocprof_compute) in the workload
# folder rocprofiler-compute's profile mode uses (ROCm/rocprofiler-compute src/rocprof_compute_profile:
# workloads/<name>/<gpu model>/). Its per-counter CSVs are not simulated. A host without a recorded
# database says so and fails, as the real tool does on an unsupported GPU.
def rocprof_compute(m, argv):
    import shutil
    import subprocess
    if "--version" in argv:
        sys.stdout.write("rocprofiler-compute version: 3.5.0 (ROCm %s)\n" % m["rocm_version"])
        return 0
    if not argv or argv[0] != "profile" or "--" not in argv:
        sys.stderr.write("usage: rocprof-compute profile -n NAME [-p PATH] -- CMD (simulated host: profile only)\n")
        return 2
    opts, cmd = argv[1:argv.index("--")], argv[argv.index("--") + 1:]
    name = opts[opts.index("-n") + 1] if "-n" in opts else "default"
    db = recorded(m, "rocprof_compute_db")
    if not db:
        sys.stderr.write("rocprof-compute: no recorded database for %s on this simulated host\n" % m["gpu"]["gfx"])
        return 1
    rc = subprocess.call(cmd)
    where = opts[opts.index("-p") + 1] if "-p" in opts else os.path.join("workloads", name,
                                                                          m["gpu"]["market_name"].split()[-1])
    os.makedirs(where, exist_ok=True)
    shutil.copyfile(db, os.path.join(where, os.path.basename(db)))
    return rc


# ---- nvidia-smi ------------------------------------------------------------------------------------
# An AMD host has no NVIDIA driver: nvidia-smi, where a package left it installed, prints this and
# exits 9 (NVML_ERROR_DRIVER_NOT_LOADED). The stand-in shadows any nvidia-smi of the machine that
# runs the tests, so detection finds the AMD GPU exactly as it would on the real host.
def nvidia_smi(m, argv):
    sys.stdout.write("NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that "
                     "the latest NVIDIA driver is installed and running.\n\n")
    return 9


TOOLS = {"rocminfo": lambda m, a: (sys.stdout.write(rocminfo(m)), 0)[1], "amd-smi": amd_smi, "rocm-smi": rocm_smi,
         "rocprofv3": rocprofv3, "rocprof-compute": rocprof_compute, "nvidia-smi": nvidia_smi}


def main(tool):
    m = manifest()
    try:
        return TOOLS[tool](m, sys.argv[1:])
    except BrokenPipeError:
        return 0
    except KeyboardInterrupt:
        return 130
