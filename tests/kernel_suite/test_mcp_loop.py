#!/usr/bin/env python3
"""The scripted MCP client (mcp_loop.py) against the real `goblin mcp` on a machine without a GPU.

Every step up to the GPU runs: initialize, tools/list, the gpu_kernel_optimize prompt, kernel_init
(Step 0 on the committed RMSNorm v0), then each version submitted as kernel_bench's kernel_source.
Without torch or a GPU the harness cannot measure, so each bench comes back as a tool error, nothing
is recorded, and the loop ends with kernel_status after its steps: the client must survive that and
say so. The H100 run of the same client is bench/results/kernel_mcp/.

Usage: test_mcp_loop.py GOBLIN SOURCE_DIR
"""
import json
import os
import subprocess
import sys
import tempfile


def main():
    goblin, src = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    with tempfile.TemporaryDirectory() as tmp:
        summary, transcript = os.path.join(tmp, "summary.json"), os.path.join(tmp, "transcript.jsonl")
        env = dict(os.environ, PYTHONUNBUFFERED="1", GOBLIN_TOOLS_DIR=os.path.join(src, "tools"))
        p = subprocess.run([sys.executable, os.path.join(src, "tests/kernel_suite/mcp_loop.py"), "--goblin", goblin,
                            "--root", src, "--out", os.path.join(tmp, "out"), "--plan",
                            os.path.join(src, "tests/kernel_suite/mcp_rmsnorm/plan.json"), "--no-profile",
                            "--transcript", transcript, "--summary", summary],
                           env=env, capture_output=True, text=True, timeout=600)
        fails = []
        if p.returncode != 0:
            fails.append(f"exit {p.returncode}: {p.stdout[-2000:]} {p.stderr[-2000:]}")
        with open(summary, encoding="utf-8") as f:
            s = json.load(f)
        if not s.get("workspace") or not os.path.isdir(os.path.join(tmp, "out")):
            fails.append(f"no workspace under --out: {s}")
        if s.get("target", {}).get("bound") != "memory_bound" or s["target"].get("metric") != "GB/s":
            fails.append(f"Step 0 target: {s.get('target')}")
        its = s.get("iterations", [])
        if len(its) != 4 or any(i.get("bench_ok") or i.get("recorded") for i in its):
            fails.append(f"expected four refused benches and nothing recorded: {its}")
        if s.get("stopped"):
            fails.append("stopped although nothing met the target")
        with open(transcript, encoding="utf-8") as f:
            msgs = [json.loads(line) for line in f]
        sent = [m["sent"] for m in msgs if "sent" in m]
        methods = [m.get("method") for m in sent]
        tools = [m["params"]["name"] for m in sent if m.get("method") == "tools/call"]
        if methods[:2] != ["initialize", "notifications/initialized"]:
            fails.append(f"handshake: {methods[:3]}")
        if tools != ["kernel_init"] + ["kernel_bench"] * 4 + ["kernel_status"]:
            fails.append(f"tool calls: {tools}")
        # The agent's edits travel as kernel_source: the bench of step 1 carries v1's text.
        benches = [m for m in sent if m.get("method") == "tools/call" and m["params"]["name"] == "kernel_bench"]
        with open(os.path.join(src, "examples/kernel/rmsnorm/v1.py"), encoding="utf-8") as f:
            if benches[1]["params"]["arguments"].get("kernel_source") != f.read():
                fails.append("step 1 did not submit v1.py as kernel_source")
        if "kernel_source" in benches[0]["params"]["arguments"]:
            fails.append("step 0 should bench the kernel.py kernel_init copied")
    for f in fails:
        print("FAIL:", f)
    print(f"{'0 passed, 1 failed' if fails else '1 passed, 0 failed'}")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
