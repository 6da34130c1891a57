#!/usr/bin/env python3
"""Seed 000's trajectory through `goblin mcp` as an MCP client over stdio (JSON-RPC 2.0, one
message per line), standard library only, for machines without node (the H100 device):

    tests/mcp/live_trajectory.py --goblin build/goblin --config workloads/configs/base.yaml \
        --out bench/results/h100_mcp_live -- --allow-live --repeats 5

Everything after `--` is passed to `goblin mcp`. It runs parse_config -> profile_run -> query_kb
(symptoms from the config AND the waste budget, as the gpu_goblin_audit prompt instructs) ->
propose_patch -> benchmark (original) -> benchmark (patched) -> compare_runs, and writes every
request and response (trajectory.json), the progress notifications and the final report
(report.json) into --out. Exit 1 when a step returns ok=false."""
import argparse
import json
import os
import subprocess
import sys
import time


class Client:
    def __init__(self, argv):
        self.p = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
        self.next_id = 0
        self.progress = []

    def request(self, method, params):
        self.next_id += 1
        rid = self.next_id
        self.p.stdin.write(json.dumps({"jsonrpc": "2.0", "id": rid, "method": method, "params": params}) + "\n")
        self.p.stdin.flush()
        while True:
            line = self.p.stdout.readline()
            if not line:
                raise RuntimeError("goblin mcp closed stdout")
            msg = json.loads(line)
            if msg.get("method") == "notifications/progress":
                self.progress.append({"t": time.time(), **msg["params"]})
                print("  progress:", msg["params"].get("message"), file=sys.stderr)
                continue
            if msg.get("id") == rid:
                return msg

    def notify(self, method, params=None):
        self.p.stdin.write(json.dumps({"jsonrpc": "2.0", "method": method, "params": params or {}}) + "\n")
        self.p.stdin.flush()

    def close(self):
        self.p.stdin.close()
        return self.p.wait(timeout=60)


def symptoms_of(cfg, metrics):
    """The gpu_goblin_audit prompt's symptom list: config fields, then non-zero waste buckets."""
    gpu = metrics.get("gpu_name") or "GPU"
    s = []
    if cfg.get("precision") in ("fp16", "fp32"):
        s.append(f"{cfg['precision']} training precision used on {gpu} instead of bf16 mixed precision")
    if cfg.get("attention_impl") == "eager":
        s.append(f"naive eager attention on {gpu}")
    if cfg.get("dataloader_workers") == 0:
        s.append("DataLoader num_workers=0 starves GPU")
    if cfg.get("dataloader_pin_memory") is False:
        s.append("DataLoader pin_memory=False")
    if cfg.get("dataloader_persistent_workers") is False:
        s.append("DataLoader workers respawn each epoch")
    if cfg.get("torch_compile") is False:
        s.append("torch.compile disabled")
    opt = str(cfg.get("optimizer") or "")
    if "adam" in opt and "fused" not in opt:
        s.append("Adam/AdamW optimizer not fused")
    for bucket, v in (metrics.get("waste_budget") or {}).items():
        if isinstance(v, (int, float)) and v > 0 and bucket not in ("useful_gpu", "unattributed", "step_time_s"):
            s.append(f"{bucket} waste")
    return s


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--goblin", required=True)
    ap.add_argument("--config", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--workload-name", default="")
    ap.add_argument("server_args", nargs="*")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    c = Client([a.goblin, "mcp", "--out", os.path.join(a.out, "server")] + a.server_args)
    log = []
    t0 = time.time()

    def call(name, args, progress=False):
        params = {"name": name, "arguments": args}
        if progress:
            params["_meta"] = {"progressToken": f"{name}-{len(log)}"}
        t = time.time()
        r = c.request("tools/call", params)
        sc = r.get("result", {}).get("structuredContent")
        log.append({"tool": name, "arguments": args, "response": r, "wall_s": round(time.time() - t, 3)})
        print(f"{name}: {r.get('result', {}).get('content', [{}])[0].get('text', r.get('error'))}", file=sys.stderr)
        if not sc or not sc.get("ok"):
            raise SystemExit(f"{name} failed: {json.dumps(r)[:2000]}")
        return sc["result"]

    init = c.request("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                    "clientInfo": {"name": "goblin-live-trajectory", "version": "1"}})
    c.notify("notifications/initialized")
    rc = 1
    try:
        cfg = call("parse_config", {"file_path": a.config})
        metrics = call("profile_run", {"config": cfg}, progress=True)
        kb = call("query_kb", {"symptoms": symptoms_of(cfg, metrics)})
        patch = call("propose_patch", {"config": cfg, "rule_ids": kb["rule_ids"], "metrics": metrics})
        before = call("benchmark", {"config": cfg}, progress=True)
        after = call("benchmark", {"config": patch["new_config"]}, progress=True)
        report = call("compare_runs", {"workload_name": a.workload_name or cfg.get("model_name") or "workload",
                                       "before": before, "after": after, "patch": patch})
        with open(os.path.join(a.out, "report.json"), "w") as f:
            json.dump(report, f, indent=1)
        print(report.get("summary_line"))
        rc = 0
    finally:
        with open(os.path.join(a.out, "trajectory.json"), "w") as f:
            json.dump({"initialize": init, "calls": log, "progress": c.progress,
                       "wall_s": round(time.time() - t0, 1)}, f, indent=1)
        c.close()
    return rc


if __name__ == "__main__":
    sys.exit(main())
