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
    finally:
        shutil.rmtree(work, ignore_errors=True)
    for f in failures:
        print("FAIL", f)
    print(f"{checked} outputs of {len(os.listdir(SECRETS_DIR))} secret-laden configs checked; {len(failures)} problems")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
