#!/usr/bin/env python3
"""goblin's live AMD paths end to end on the simulated ROCm host (tests/sim_rocm): the stand-ins
first on PATH (no real nvidia-smi or ROCm tool can answer), the stand-in workload as train.py, and
the report an AMD user gets checked as a user would read it.

  e2e_test.py --goblin build/goblin CASE      CASE: profile | rocprof_disagree | rocprofv3_outputs | bench |
                                              audit_mi300x | audit_mi355x | amd_smi_and_footer |
                                              audit_command | audit_command_script | bench_images
amd_smi_and_footer: amd-smi's HBM in run.json and the report, the ROCm version and driver in the footer.
Exit 0 when every check of the case holds, 1 with one line per failed check.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
WORKLOAD = os.path.join(HERE, "workload.py")
BASE = os.path.join(REPO, "workloads/configs/base.yaml")  # fp32, eager attention, 0 DataLoader workers
TUNED = os.path.join(REPO, "workloads/configs/tuned.yaml")  # bf16, sdpa, 4 workers
COMMAND = os.path.join(HERE, "command")  # launch lines: run_clm.py-like and image stand-ins
CLM_LINE = "python3 run_clm.py --model_name_or_path sim-llama --per_device_train_batch_size 2 --block_size 1024"
# Advice that only holds on NVIDIA GPUs: an AMD user's report must not give it.
NVIDIA_ONLY = re.compile(r"CUDA graphs?|TF32|allow_tf32|cuBLAS|nvidia-smi|Tensor Cores?|cuDNN|CUTLASS|NCCL_", re.I)

failures = []


def check(ok, what):
    if not ok:
        failures.append(what)
    return ok


def env_for(host, extra=None):
    env = dict(os.environ)
    # The stand-ins shadow any real nvidia-smi / ROCm tool; python3 stays the one running this test.
    env["PATH"] = os.pathsep.join([os.path.join(HERE, "bin"), os.path.dirname(sys.executable), "/usr/bin", "/bin"])
    env["GOBLIN_SIM_ROCM_HOST"] = host
    env["GOBLIN_CACHE_DIR"] = tempfile.mkdtemp(prefix="sim_rocm_cache_")
    env.pop("GOBLIN_ASSUME_NO_GPU", None)
    env.pop("GOBLIN_AUDIT_ALLOW_NO_GPU", None)
    env.update(extra or {})
    return env


def goblin(args, env, expect=0, cwd=None):
    p = subprocess.run([ARGS.goblin] + args, env=env, capture_output=True, text=True, timeout=120, cwd=cwd)
    check(p.returncode == expect, "goblin %s: exit %d, expected %d\n%s" % (" ".join(args[:2]), p.returncode, expect,
                                                                          p.stderr[-2000:]))
    return p


def load(path):
    with open(path) as f:
        return json.load(f)


def profile_case(host="mi300x", drop=0):
    out = tempfile.mkdtemp(prefix="sim_rocm_profile_")
    extra = {"GOBLIN_SIM_ROCPROF_DROP": str(drop)} if drop else {}
    p = goblin(["profile", BASE, "--workload", WORKLOAD, "--steps", "3", "--warmup", "1", "-o", out], env_for(host, extra))
    run, metrics = load(out + "/run.json"), load(out + "/metrics.json")
    check(run["gpu"]["vendor"] == "amd" and run["gpu"]["name"] == "AMD Instinct MI300X",
          "run.json gpu: %s" % run["gpu"])
    check(run["tracer"]["name"] == "torch", "tracer %s (the CUPTI tracer is NVIDIA's)" % run["tracer"])
    rp = run.get("rocprofv3", {})
    check(rp.get("read") is True and rp.get("kernels", 0) > 0, "rocprofv3 kernel trace not read: %s" % rp)
    # ROCm 7.0.2 on the simulated host: rocprofv3's default rocpd database, not the deprecated CSV.
    check([f.endswith("_results.db") for f in rp.get("kernel_trace", [])] == [True],
          "expected one <pid>_results.db (rocpd) named: %s" % rp.get("kernel_trace"))
    check(metrics.get("gpu_name") == "AMD Instinct MI300X", "metrics gpu_name %s" % metrics.get("gpu_name"))
    wb = metrics.get("waste_budget") or {}
    check((wb.get("precision_path") or 0) > 0.2 * (wb.get("step_time_s") or 1),
          "precision_path %s of step %s: fp32 Tensile GEMMs not found" % (wb.get("precision_path"), wb.get("step_time_s")))
    check((wb.get("data_wait") or 0) > 0, "data_wait %s with 0 DataLoader workers" % wb.get("data_wait"))
    check(metrics.get("attention_kernel_loaded") == "eager", "attention %s" % metrics.get("attention_kernel_loaded"))
    if drop:
        check(rp.get("agrees") is False and rp.get("expected_kernels_found", 0) < rp.get("expected_kernels", 0),
              "rocprofv3 with %d records lost still agrees: %s" % (drop, rp))
        check("rocprofv3 and the Kineto trace disagree" in p.stderr, "profile did not warn on stderr")
    else:
        check(rp.get("agrees") is True and rp.get("coverage_pct") == 100.0 and rp.get("kernels") > rp.get("kineto_kernels"),
              "rocprofv3 vs Kineto: %s" % rp)
        check("rocprofv3 and the Kineto trace disagree" not in p.stderr, "disagreement warned on a consistent run")


def rocprofv3_outputs_case():
    """The rocprofv3 stand-in's CSV and JSON of one run, as goblin reads them: same dispatches,
    the MI355X agent (gfx950, 256 CUs) from the JSON's agent record."""
    out = tempfile.mkdtemp(prefix="sim_rocm_rocprofv3_")
    env = env_for("mi355x")
    p = subprocess.run(["rocprofv3", "--kernel-trace", "-f", "json", "csv", "-d", out, "--", sys.executable, WORKLOAD,
                        TUNED, "--steps", "2", "--warmup", "0"], env=env, capture_output=True, text=True, timeout=60)
    check(p.returncode == 0, "rocprofv3 stand-in: exit %d %s" % (p.returncode, p.stderr[-500:]))
    host = os.path.join(out, "sim-mi355x")
    files = sorted(os.listdir(host)) if os.path.isdir(host) else []
    csvs = [f for f in files if f.endswith("_kernel_trace.csv")]
    jsons = [f for f in files if f.endswith("_results.json")]
    if not check(len(csvs) == 1 and len(jsons) == 1, "expected <pid>_kernel_trace.csv and <pid>_results.json: %s" % files):
        return
    check(csvs[0].split("_")[0] == jsons[0].split("_")[0], "the two outputs name different pids: %s" % files)
    infos = [json.loads(goblin(["info", os.path.join(host, f), "--json"], env).stdout)["result"] for f in csvs + jsons]
    check(infos[0]["format"].startswith("rocprofv3") and infos[1]["format"] == "rocprofv3-json",
          "formats %s, %s" % (infos[0]["format"], infos[1]["format"]))
    n = [i["events"]["kernels"] for i in infos]
    check(n[0] == n[1] and n[0] > 0, "kernels: CSV %d, JSON %d" % tuple(n))
    dev = infos[1]["devices"][0] if infos[1]["devices"] else {}
    check(dev.get("name") == "AMD Instinct MI355X" and dev.get("arch") == "gfx950" and dev.get("sms") == 256,
          "JSON agent: %s" % dev)
    # Without -f, ROCm 7's rocprofv3 writes rocpd: <pid>_results.db, the same dispatches again.
    out2 = tempfile.mkdtemp(prefix="sim_rocm_rocpd_")
    p = subprocess.run(["rocprofv3", "--kernel-trace", "-d", out2, "--", sys.executable, WORKLOAD, TUNED, "--steps",
                        "2", "--warmup", "0"], env=env, capture_output=True, text=True, timeout=60)
    check(p.returncode == 0, "rocprofv3 stand-in (rocpd): exit %d %s" % (p.returncode, p.stderr[-500:]))
    dbs = [f for f in (os.listdir(os.path.join(out2, "sim-mi355x")) if os.path.isdir(os.path.join(out2, "sim-mi355x"))
                       else []) if f.endswith("_results.db")]
    if check(len(dbs) == 1, "expected <pid>_results.db by default: %s" % dbs):
        db = json.loads(goblin(["info", os.path.join(out2, "sim-mi355x", dbs[0]), "--json"], env).stdout)["result"]
        dev = db["devices"][0] if db["devices"] else {}
        check(db["format"] == "rocpd" and db["events"]["kernels"] == n[0],
              "rocpd: format %s, kernels %d (CSV %d)" % (db["format"], db["events"]["kernels"], n[0]))
        check(dev.get("name") == "AMD Instinct MI355X" and dev.get("arch") == "gfx950", "rocpd agent: %s" % dev)


def bench_case():
    out = tempfile.mkdtemp(prefix="sim_rocm_bench_")
    p = goblin(["bench", BASE, "--against", TUNED, "--workload", WORKLOAD, "--repeats", "3", "--steps", "3",
                "--warmup", "1", "--work-dir", out, "--json"], env_for("mi300x"))
    r = json.loads(p.stdout)["result"]
    check(r["gpu"]["name"] == "AMD Instinct MI300X", "bench gpu %s" % r["gpu"])
    check(r["order"] == "ABABAB", "order %s" % r["order"])
    sp = r["comparison"]["speedup"]["point"]
    check(sp > 2.5, "bf16 + sdpa + workers speedup %.2f on the simulated MI300X (expected > 2.5)" % sp)
    check(r["versions"].get("gpu") == "AMD Instinct MI300X", "versions %s" % r["versions"])


def report_text_outside_config(md):
    """report.md without its fenced blocks (the config diff quotes the user's own file, tf32: false)."""
    return re.sub(r"```.*?```", "", md, flags=re.S)


def audit(host, extra=None):
    out = tempfile.mkdtemp(prefix="sim_rocm_audit_")
    p = goblin(["audit", BASE, "--rounds", "2", "--repeats", "3", "--steps", "3", "-o", out, "--no-history", "-q",
                "--json"], env_for(host, dict({"GOBLIN_STANDIN_EXACT": "1", "GOBLIN_WORKLOAD": WORKLOAD}, **(extra or {}))))
    if not check(os.path.exists(out + "/report.json"), "no report.json:\n" + p.stdout[-1500:] + p.stderr[-1500:]):
        return None, None, out
    return load(out + "/report.json"), open(out + "/report.md").read(), out


def audit_case(host, market_name, peak_ratio):
    rep, md, out = audit(host)
    if rep is None:
        return
    rounds = rep.get("rounds", [])
    if not check(len(rounds) == 2, "rounds: %d" % len(rounds)):
        return
    r1 = rounds[0]
    for rule in ("precision.bf16_amp_over_fp32", "attention.flash_rocm_over_eager", "data.dataloader_workers_zero"):
        check(rule in r1.get("rules", []), "round 1 does not apply %s: %s" % (rule, r1.get("rules")))
    check(r1.get("accepted") is True and r1["measured"]["speedup"] > 2.5,
          "round 1 (bf16 + flash + workers) not accepted with > 2.5x: %s" % r1.get("measured"))
    check(rounds[1]["config"].endswith("round-1.yaml"), "round 2 does not start from round 1's config")
    patched = open(os.path.join(out, "rounds", "round-1.yaml")).read()
    check(re.search(r"^bf16:\s*true", patched, re.M) and re.search(r"^attn_implementation:\s*flash_attention_2", patched, re.M),
          "round 2 runs a config without bf16 / flash attention:\n" + patched)
    bf16 = [r for r in rep["rules"] if r["rule_id"] == "precision.bf16_amp_over_fp32"]
    check(bf16 and any("bucket_share.precision_path" in e for e in bf16[0]["evidence"]),
          "bf16 rule without the measured precision_path evidence: %s" % bf16)
    check(market_name in rep.get("summary_line", "") and market_name in json.dumps(rep["validity_footer"]),
          "headline/footer do not name the %s" % market_name)
    # The prediction re-prices fp32 GEMM time by the GPU's own fp32-matrix / bf16 peak ratio
    # (data/gpus.yaml): 163.4 / 1307.4 on MI300X, 157.3 / 2516.6 on MI355X.
    check("peak ratio %s" % peak_ratio in md, "prediction not from the %s peaks (ratio %s)" % (market_name, peak_ratio))
    advice = report_text_outside_config(md) + json.dumps([{k: r.get(k) for k in ("title", "transform", "evidence")}
                                                          for r in rep["rules"]])
    advice += json.dumps([rep.get("symptoms")] + [r.get("symptoms") for r in rounds])  # the kb queries too
    bad = sorted(set(m.group(0) for m in NVIDIA_ONLY.finditer(advice)))
    check(not bad, "the report gives NVIDIA-only advice on an AMD GPU: %s" % bad)
    print(json.dumps({"host": host, "headline": rep.get("summary_line"),
                      "rounds": [{"rules": r.get("rules"), "accepted": r.get("accepted"),
                                  "speedup": r.get("measured", {}).get("speedup")} for r in rounds],
                      "total_speedup": rep.get("total_speedup")}, indent=1))


def audit_command_case(args):
    """A launch line is the config: goblin reads its flags (and run_clm.py's argparse defaults),
    patches the line in place and runs the patched line for the after side."""
    out = tempfile.mkdtemp(prefix="sim_rocm_cmd_")
    p = subprocess.run([ARGS.goblin, "audit"] + args + ["--rounds", "1", "--no-profile-after", "--repeats", "2",
                                                        "--steps", "2", "--profile-steps", "2", "-o", out,
                                                        "--no-history", "-q", "--json"],
                       env=env_for("mi300x", {"GOBLIN_STANDIN_EXACT": "1"}), cwd=COMMAND, capture_output=True,
                       text=True, timeout=120)
    if not check(os.path.exists(out + "/report.json"), "no report.json:\n" + p.stdout[-1500:] + p.stderr[-1500:]):
        return
    patch = load(out + "/patch.json")
    check(patch.get("format") == "command", "patch format %s" % patch.get("format"))
    new = patch.get("new_config", {})
    diff = patch.get("diff", "")
    # The line's batch size (run_clm.py's argparse default is 8): kept, or patched in place.
    check(new.get("batch_size") == 2 or re.search(r"^\+.*--per_device_train_batch_size \d", diff, re.M),
          "the line's --per_device_train_batch_size 2 was not read: %s" % json.dumps(new)[:400])
    check(re.search(r"^\+.*--bf16", diff, re.M), "the patch does not add --bf16:\n" + diff)
    check(re.search(r"^\+.*--attn_implementation flash_attention_2", diff, re.M),
          "the patch does not set --attn_implementation:\n" + diff)
    runs = load(out + "/live_runs.json")
    pair = [r for r in runs if r.get("call") == "bench_pair"]
    if not check(pair, "no bench_pair in live_runs.json"):
        return
    after = pair[0]["config_files"][1]
    check(after.endswith(".sh") and "--bf16" in open(after).read(), "the after side did not run the patched line")
    cmd = pair[0]["bench"]["b"]["command"]
    check(cmd[:2] == ["bash", after], "the after side ran %s" % cmd)
    rep = load(out + "/report.json")
    sp = (rep.get("speedup_actual") or {}).get("point") if isinstance(rep.get("speedup_actual"), dict) else rep.get("speedup_actual")
    check(sp and sp > 1.5, "patched line not faster: %s" % sp)
    print(json.dumps({"case": args[0], "speedup_actual": sp, "diff": diff}, indent=1))


def bench_images_case():
    """An image workload's launch script: bench reports images/s, tokens/s stays 0."""
    # The script runs `python3 train_images.py` from the working directory, as its user would.
    p = goblin(["bench", "train_images.sh", "--repeats", "2", "--steps", "2", "--warmup", "1", "--no-cache", "--json"],
               env_for("mi300x", {"GOBLIN_STANDIN_EXACT": "1"}), cwd=COMMAND)
    r = json.loads(p.stdout)["result"] if p.stdout.strip() else {}
    check(r.get("throughput_unit") == "images", "unit %s" % r.get("throughput_unit"))
    # 16 images a step of 2e-3 x 16 s (GOBLIN_STANDIN_EXACT): 500 images/s.
    check(abs(r.get("throughput", 0) - 500.0) < 1.0, "throughput %s images/s, expected 500" % r.get("throughput"))
    check(r.get("tokens_per_sec") == 0, "tokens_per_sec %s" % r.get("tokens_per_sec"))
    # The progress lines count images too ("... 0.0320 s/step, 500 images/s").
    check("500 images/s" in p.stderr and "tokens/s" not in p.stderr, "bench progress:\n" + p.stderr[-1500:])


def amd_smi_and_footer_case():
    """HBM from amd-smi in run.json and the report, the ROCm version and driver in the validity footer."""
    rep, md, out = audit("mi300x")
    if rep is None:
        return
    runs = load(out + "/live_runs.json")
    tel = runs[0].get("run", runs[0]).get("telemetry") or {}
    check(tel.get("observed") is True, "amd-smi telemetry not observed in run.json: %s" % tel)
    check("94.8" in md or "HBM" in md and "no memory telemetry" not in md, "report shows no HBM from amd-smi")
    footer = json.dumps(rep["validity_footer"])
    check("7.0.2" in footer, "validity footer lacks the ROCm version: %s" % footer)
    check("6.14.14" in footer, "validity footer lacks the amdgpu driver: %s" % footer)


def main():
    global ARGS
    ap = argparse.ArgumentParser()
    ap.add_argument("--goblin", required=True)
    ap.add_argument("case", choices=["profile", "rocprof_disagree", "rocprofv3_outputs", "bench", "audit_mi300x",
                                     "audit_mi355x", "amd_smi_and_footer", "audit_command", "audit_command_script",
                                     "bench_images"])
    ARGS = ap.parse_args()
    ARGS.goblin = os.path.abspath(ARGS.goblin)  # some cases run goblin from another folder
    if ARGS.case == "profile":
        profile_case()
    elif ARGS.case == "rocprof_disagree":
        profile_case(drop=200)
    elif ARGS.case == "rocprofv3_outputs":
        rocprofv3_outputs_case()
    elif ARGS.case == "bench":
        bench_case()
    elif ARGS.case == "audit_mi300x":
        audit_case("mi300x", "AMD Instinct MI300X", "0.125")
    elif ARGS.case == "audit_mi355x":
        audit_case("mi355x", "AMD Instinct MI355X", "0.0625")
    elif ARGS.case == "audit_command":
        audit_command_case(["--command", CLM_LINE])
    elif ARGS.case == "audit_command_script":
        audit_command_case([os.path.join(COMMAND, "train.sh")])
    elif ARGS.case == "bench_images":
        bench_images_case()
    else:
        amd_smi_and_footer_case()
    for f in failures:
        print("FAIL: " + f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
