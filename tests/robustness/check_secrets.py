#!/usr/bin/env python3
"""No secret in any output (issue 14): runs every goblin output a config reaches -- parse-config
(text and --json), patch (diff text and --json), the audit's report directory (report.json/md/html,
patch.json, trajectory.json) and the MCP server's parse_config and propose_patch results -- on each
secret-laden config of tests/robustness/secrets/ (YAML, JSON, Python, env) and fails when one of
their secrets appears anywhere.

The audit's patched_<config> copy is the user's own file and keeps its values (docs/audit.md), so
it is checked the other way round: it must still hold them.

  check_secrets.py --goblin build/goblin
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
SECRETS_DIR = os.path.join(HERE, "secrets")
# Distinct parts of each secret the four files hold (none is a redaction placeholder).
SECRETS = ["9f8e7d6c5b4a39281706", "wJalrXUtnFEMIK7MDENG", "0123456789abcdef0123", "SECRETaaaaBBBB",
           "hunter2-Correct", "Sup3rS3cretPw", "private-bucket-secret", "1a2b3c4d5e6f7a8b9c0d", "SECRETproj0123",
           "pw-Env-Only-42", "pgS3cretValue99", "dXNlcjpwYXNzd29yZDEyMw", "51HstripeLIVE", "dozjgNryP4J3jVmNHl0w5N",
           "QWERTYsecret12345", "AIzaSyA1234567890", "npm_abcdefghijklmnop", "AgEIcHlwaS5vcmcCJGQ0"]


def run(argv, stdin=None):
    p = subprocess.run(argv, input=stdin, capture_output=True, text=True, timeout=120)
    return p.returncode, p.stdout + p.stderr


def mcp_outputs(goblin, root, name, out_dir):
    init = [{"jsonrpc": "2.0", "id": 1, "method": "initialize",
             "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}},
            {"jsonrpc": "2.0", "method": "notifications/initialized"},
            {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
             "params": {"name": "parse_config", "arguments": {"file_path": name}}}]
    argv = [goblin, "mcp", "--root", root, "--out", out_dir]
    _, out = run(argv, "\n".join(json.dumps(m) for m in init) + "\n")
    replies = [json.loads(l) for l in out.splitlines() if l.startswith("{")]
    parsed = next(r for r in replies if r.get("id") == 2)
    config = parsed["result"]["structuredContent"]["result"]
    patch = {"jsonrpc": "2.0", "id": 3, "method": "tools/call",
             "params": {"name": "propose_patch", "arguments": {
                 "config": config, "rule_ids": ["precision.bf16_amp_over_fp32", "data.dataloader_workers_zero",
                                                "data.pin_memory"], "vendor": "nvidia"}}}
    _, out2 = run(argv, "\n".join(json.dumps(m) for m in init + [patch]) + "\n")
    return out + out2


# A real trace (the bundled H100 example) with every kind of secret planted in its metadata.
TRACE_SECRETS = {
    "wandb_api_key": "1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b",
    "note": "login with hf_SECRETaaaaBBBBccccDDDDeeeeFFFF1234 then run",
    "command_line": "python train.py --aws_secret_access_key wJalrXUtnFEMIK7MDENGbPxRfiCYSECRETKEY01 --lr 3e-4 "
                    "--hf-token=hf_SECRETproj0123abcdEFGH --password hunter2-Correct",
    "argv": ["train.py", "--api-key", "QWERTYsecret12345", "--db_password", "pw-Env-Only-42"],
    "env": {"PGPASSWORD": "pgS3cretValue99", "DATABASE_URL": "postgres://trainer:Sup3rS3cretPw@db.example.com/runs"},
    "headers": ["Authorization: Basic dXNlcjpwYXNzd29yZDEyMw==", "Bearer 9f8e7d6c5b4a39281706aa"],
    "session": "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
    "billing": "sk_live_51HstripeLIVEabcdefghijklmnop",
}


def secret_trace(work):
    import gzip
    src = os.path.join(REPO, "examples", "h100_llama", "h100_llama_bf16_sdpa_w4.json.gz")
    with gzip.open(src, "rt") as f:
        doc = json.load(f)
    doc.update(TRACE_SECRETS)
    root = os.path.join(work, "trace_root")
    os.makedirs(root)
    path = os.path.join(root, "secret_trace.json")
    with open(path, "w") as f:
        json.dump(doc, f)
    return root, path


def trace_outputs(goblin, work):
    root, trace = secret_trace(work)
    outputs = {}
    failures = []
    for verb in ["info", "metrics", "breakdown", "roofline"]:
        for json_flag in ([], ["--json"]):
            label = " ".join([verb] + json_flag)
            code, out = run([goblin, verb, trace] + json_flag)
            outputs[label] = out
            if code != 0:
                failures.append(f"trace: {label} exited {code}")
    tdir = os.path.join(work, "triage_out")
    code, out = run([goblin, "triage", trace, "-o", tdir, "--json"])
    outputs["triage --json"] = out
    if code != 0:
        failures.append(f"trace: triage exited {code}")
    for dirpath, _, files in os.walk(tdir):
        for f in files:
            with open(os.path.join(dirpath, f), encoding="utf-8", errors="replace") as fh:
                outputs["triage " + f] = fh.read()
    msgs = [{"jsonrpc": "2.0", "id": 1, "method": "initialize",
             "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}},
            {"jsonrpc": "2.0", "method": "notifications/initialized"}]
    for i, tool in enumerate(["info", "triage", "metrics"]):
        msgs.append({"jsonrpc": "2.0", "id": 10 + i, "method": "tools/call",
                     "params": {"name": tool, "arguments": {"path": "secret_trace.json"}}})
    code, out = run([goblin, "mcp", "--root", root, "--out", os.path.join(work, "mcp_trace")],
                    "\n".join(json.dumps(m) for m in msgs) + "\n")
    replies = [json.loads(l) for l in out.splitlines() if l.startswith("{")]
    answered = {r.get("id") for r in replies if "result" in r}
    if not {10, 11, 12} <= answered:
        failures.append(f"trace: MCP answered {sorted(x for x in answered if x)} of tools 10-12")
    outputs["mcp info + triage + metrics"] = out
    return outputs, failures


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--goblin", required=True)
    a = ap.parse_args()
    goblin = os.path.abspath(a.goblin)
    work = tempfile.mkdtemp(prefix="goblin_secrets_")
    failures = []
    checked = 0
    try:
        for name in sorted(os.listdir(SECRETS_DIR)):
            cfg = os.path.join(SECRETS_DIR, name)
            with open(cfg) as f:
                present = [s for s in SECRETS if s in f.read()]
            outputs = {}
            for label, argv in [
                ("parse-config", [goblin, "parse-config", cfg]),
                ("parse-config --json", [goblin, "parse-config", cfg, "--json"]),
                ("patch", [goblin, "patch", cfg, "--rules", "all", "--vendor", "nvidia"]),
                ("patch --json", [goblin, "patch", cfg, "--rules", "all", "--vendor", "nvidia", "--json"]),
            ]:
                code, out = run(argv)
                outputs[label] = out
                if code != 0:
                    failures.append(f"{name}: {label} exited {code}")
            audit_dir = os.path.join(work, "audit_" + name)
            code, out = run([goblin, "audit", cfg, "--replay", os.path.join(REPO, "examples", "h100_llama"), "-o",
                             audit_dir, "-q", "--vendor", "nvidia"])
            outputs["audit (stdout)"] = out
            if code != 0:
                failures.append(f"{name}: audit exited {code}")
            kept = None
            for f in sorted(os.listdir(audit_dir)) if os.path.isdir(audit_dir) else []:
                with open(os.path.join(audit_dir, f), encoding="utf-8", errors="replace") as fh:
                    text = fh.read()
                if f.startswith("patched_"):
                    kept = text
                else:
                    outputs["audit " + f] = text
            if kept is None:
                failures.append(f"{name}: the audit wrote no patched_{name}")
            elif any(s not in kept for s in present):
                failures.append(f"{name}: the audit's patched copy lost the user's values")
            outputs["mcp parse_config + propose_patch"] = mcp_outputs(goblin, SECRETS_DIR, name,
                                                                     os.path.join(work, "mcp_" + name))
            for label, text in outputs.items():
                checked += 1
                for s in SECRETS:
                    if s in text:
                        failures.append(f"{name}: {label} shows a secret ({s[:6]}...)")
        outputs, trace_failures = trace_outputs(goblin, work)
        failures += trace_failures
        for label, text in outputs.items():
            checked += 1
            for s in SECRETS:
                if s in text:
                    failures.append(f"secret_trace: {label} shows a secret ({s[:6]}...)")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    for f in failures:
        print("FAIL", f)
    print(f"{checked} outputs of {len(os.listdir(SECRETS_DIR))} secret-laden configs and one trace checked; {len(failures)} problems")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
