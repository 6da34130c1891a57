#!/usr/bin/env python3
"""A scripted MCP client that optimizes one kernel through `goblin mcp` (issue 29, seed 004's loop).

Standard library only. It starts `goblin mcp`, speaks JSON-RPC over its stdio, and plays the agent
of the gpu_kernel_optimize prompt with a fixed list of versions (the "edits" an agent would make):

  kernel_init (Step 0: roofline, Stop Condition)
  for each version:  kernel_bench (its source as kernel_source: written over kernel.py, measured)
                     kernel_profile (when ncu is on PATH)
                     kernel_record (only a bench that passed every check)
                     kernel_plan, kernel_status -> stop when next.action is "stop"

The plan file (JSON) names the kernel, the platform and the steps:
  {"name": "rmsnorm", "platform": "H100", "rep_ms": 100, "warmup_ms": 25, "max_iterations": 6,
   "steps": [{"file": "examples/kernel/rmsnorm/v0.py", "summary": "...", "hypothesis": "...",
              "tags": ["single_pass"]}, ...]}
File paths are relative to --root, which the server confines every path to.

Usage: mcp_loop.py --goblin build/goblin --root . --out /tmp/mcp --plan tests/kernel_suite/mcp_rmsnorm.json
       [--transcript FILE.jsonl] [--no-profile]
Exit 0 when the loop ran to a stop (or through its steps), 1 when a protocol step failed.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import time


class Client:
    """Newline-delimited JSON-RPC 2.0 over the server's stdin/stdout (the MCP stdio transport)."""

    def __init__(self, cmd, cwd, transcript):
        self.proc = subprocess.Popen(cmd, cwd=cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=sys.stderr, text=True, bufsize=1)
        self.next_id = 0
        self.transcript = transcript

    def log(self, direction, msg):
        if self.transcript:
            self.transcript.write(json.dumps({"t": round(time.time(), 3), direction: shrink(msg)}) + "\n")
            self.transcript.flush()

    def send(self, msg):
        self.log("sent", msg)
        self.proc.stdin.write(json.dumps(msg) + "\n")
        self.proc.stdin.flush()

    def request(self, method, params=None):
        self.next_id += 1
        rid = self.next_id
        self.send({"jsonrpc": "2.0", "id": rid, "method": method, "params": params or {}})
        while True:
            line = self.proc.stdout.readline()
            if not line:
                raise RuntimeError(f"the server closed its output while {method} was pending")
            msg = json.loads(line)
            self.log("received", msg)
            if msg.get("id") == rid:
                if "error" in msg:
                    raise RuntimeError(f"{method}: JSON-RPC error {msg['error']}")
                return msg["result"]

    def notify(self, method, params=None):
        self.send({"jsonrpc": "2.0", "method": method, "params": params or {}})

    def tool(self, name, args):
        """tools/call: (ok, result or error) from the structuredContent envelope {ok, result, error}."""
        r = self.request("tools/call", {"name": name, "arguments": args})
        sc = r.get("structuredContent") or {}
        if r.get("isError") or not sc.get("ok", False):
            return False, sc.get("error") or (r.get("content") or [{}])[0].get("text")
        return True, sc.get("result")

    def close(self):
        try:
            self.proc.stdin.close()
            self.proc.wait(timeout=30)
        except (OSError, subprocess.TimeoutExpired):
            self.proc.kill()


def shrink(x):
    """The transcript keeps every message but not every timing sample: long number lists -> a count."""
    if isinstance(x, dict):
        return {k: shrink(v) for k, v in x.items()}
    if isinstance(x, list):
        if len(x) > 40 and all(isinstance(v, (int, float)) for v in x):
            return f"[{len(x)} numbers]"
        return [shrink(v) for v in x]
    return x


def say(*a):
    print("[mcp_loop]", *a, flush=True)


def perf_line(bench):
    p = (bench or {}).get("performance") or {}
    keys = ("median_latency_ms", "gbs", "tflops", "pct_of_target")
    return ", ".join(f"{k}={p[k]:.4g}" for k in keys if isinstance(p.get(k), (int, float)))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--goblin", required=True)
    ap.add_argument("--root", required=True, help="the server's --root: every path is confined to it")
    ap.add_argument("--out", required=True, help="the server's --out: the workspace is made under it")
    ap.add_argument("--plan", required=True)
    ap.add_argument("--transcript", help="every JSON-RPC message, one per line")
    ap.add_argument("--summary", help="write the loop's outcome here as JSON")
    ap.add_argument("--no-profile", action="store_true", help="skip kernel_profile even when ncu is present")
    args = ap.parse_args()
    root = os.path.abspath(args.root)
    with open(args.plan, encoding="utf-8") as f:
        plan = json.load(f)
    os.makedirs(args.out, exist_ok=True)
    transcript = open(args.transcript, "w", encoding="utf-8") if args.transcript else None
    # The kernel tools are their own group (docs/mcp.md § Tool groups): a kernel loop asks for it.
    cmd = [os.path.abspath(args.goblin), "mcp", "--tools", "kernel", "--root", root, "--out",
           os.path.abspath(args.out), "--budget", str(plan.get("budget", 8)), "--tool-timeout",
           str(plan.get("tool_timeout_s", 300))]
    say("server:", " ".join(cmd))
    c = Client(cmd, root, transcript)
    outcome = {"name": plan["name"], "platform": plan["platform"], "iterations": [], "stopped": False}
    try:
        init = c.request("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                        "clientInfo": {"name": "goblin-mcp-loop", "version": "1"}})
        say("server", init.get("serverInfo"))
        c.notify("notifications/initialized")
        tools = {t["name"] for t in c.request("tools/list")["tools"]}
        need = ["kernel_init", "kernel_bench", "kernel_profile", "kernel_plan", "kernel_record", "kernel_status"]
        missing = [t for t in need if t not in tools]
        if missing:
            raise RuntimeError(f"tools missing: {missing}")
        prompt = c.request("prompts/get", {"name": "gpu_kernel_optimize",
                                           "arguments": {"platform": plan["platform"]}})
        say("prompt gpu_kernel_optimize:", len(prompt["messages"][0]["content"]["text"]), "chars")

        steps = plan["steps"]
        ok, ws = c.tool("kernel_init", {"name": plan["name"], "kernel": steps[0]["file"],
                                        "platform": plan["platform"],
                                        "max_iterations": plan.get("max_iterations", len(steps))})
        if not ok:
            raise RuntimeError(f"kernel_init: {ws}")
        workspace = ws["workspace"]
        outcome["workspace"] = workspace
        outcome["target"] = {"bound": ws["roofline"].get("bound"), "metric": ws["target"].get("metric"),
                             "value": ws["target"].get("value")}
        say("workspace", workspace, "target", outcome["target"])
        profile = not args.no_profile and shutil.which("ncu") is not None
        if not profile:
            say("kernel_profile skipped:", "--no-profile" if args.no_profile else "ncu is not on PATH")

        for i, step in enumerate(steps):
            it = {"step": i, "file": step["file"], "summary": step["summary"]}
            outcome["iterations"].append(it)
            bargs = {"workspace": workspace, "rep_ms": plan.get("rep_ms", 100), "warmup_ms": plan.get("warmup_ms", 25)}
            if i > 0:  # the agent's edit: the whole new kernel.py, measured through the harness only
                with open(os.path.join(root, step["file"]), encoding="utf-8") as f:
                    bargs["kernel_source"] = f.read()
            ok, bench = c.tool("kernel_bench", bargs)
            it["bench_ok"] = ok
            if not ok:
                it["error"] = bench
                say(f"step {i} ({step['file']}): bench refused, not recorded:", str(bench)[:400])
                continue
            it["performance"] = bench.get("performance")
            say(f"step {i} ({step['file']}): bench", perf_line(bench))
            if profile:
                ok, prof = c.tool("kernel_profile", {"workspace": workspace})
                it["profile_ok"] = ok
                if ok:
                    it["diagnosis"] = [{"kernel": k.get("kernel") or k.get("name"), "bound": k.get("bound")}
                                       for k in prof.get("kernels", [])][:4]
                    say(f"step {i}: profile", json.dumps(it["diagnosis"])[:300])
                else:
                    say(f"step {i}: profile failed (recorded without it):", str(prof)[:300])
            rargs = {"workspace": workspace, "summary": step["summary"], "hypothesis": step.get("hypothesis", "")}
            if step.get("tags"):  # a list field, when given, must not be empty (the baseline tries nothing)
                rargs["tags"] = step["tags"]
            ok, rec = c.tool("kernel_record", rargs)
            it["recorded"] = ok
            if not ok:
                it["error"] = rec
                say(f"step {i}: record refused:", str(rec)[:400])
                continue
            it["version"] = rec.get("version")
            it["restored_from"] = rec.get("restored_from")
            say(f"step {i}: recorded v{rec.get('version')} commit {rec.get('commit')}",
                f"(kernel.py restored from v{rec['restored_from']})" if rec.get("restored_from") is not None else "")
            ok, pl = c.tool("kernel_plan", {"workspace": workspace})
            if ok:
                it["plan"] = {"path": pl.get("path"), "next_version": pl.get("next_version"),
                              "candidates": [{"id": x.get("id"), "tried_in": x.get("tried_in")}
                                             for x in pl.get("candidates", [])]}
                nxt = steps[i + 1] if i + 1 < len(steps) else None
                if nxt:
                    proposed = {x["id"] for x in it["plan"]["candidates"]}
                    say(f"step {i}: plan proposes {sorted(proposed)}; the next step tries {nxt.get('tags', [])}")
            ok, st = c.tool("kernel_status", {"workspace": workspace})
            if not ok:
                raise RuntimeError(f"kernel_status: {st}")
            it["next"] = st.get("next")
            say(f"step {i}: status next =", json.dumps(st.get("next")))
            if (st.get("next") or {}).get("action") == "stop":
                outcome["stopped"] = True
                outcome["best"] = st.get("best")
                break
        else:
            ok, st = c.tool("kernel_status", {"workspace": workspace})
            outcome["best"] = st.get("best") if ok else None
        say("done:", "stopped by kernel_status" if outcome["stopped"] else "steps exhausted before a stop")
        rc = 0
    except (RuntimeError, OSError, KeyError, json.JSONDecodeError) as e:
        say("failed:", e)
        outcome["error"] = str(e)
        rc = 1
    finally:
        c.close()
        if transcript:
            transcript.close()
    if args.summary:
        with open(args.summary, "w", encoding="utf-8") as f:
            json.dump(outcome, f, indent=2)
            f.write("\n")
    return rc


if __name__ == "__main__":
    sys.exit(main())
