#!/usr/bin/env python3
"""Bytes of `goblin mcp`'s tools/list response, per tool group (bench/results/mcp_context).

Starts `goblin mcp [--tools SPEC]` once per SPEC, sends initialize and tools/list on stdin and
measures the tools/list response line as the server wrote it (UTF-8 bytes, without the newline),
plus each tool's listing (compact JSON). Prints one JSON document.

  bench/mcp_context.py --goblin build/goblin [SPEC ...]      SPEC: "" (the default), all, audit, ...
"""
import argparse
import json
import subprocess
import sys
import tempfile


def measure(goblin, spec):
    msgs = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize",
         "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "m", "version": "1"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
    ]
    with tempfile.TemporaryDirectory() as out:
        argv = [goblin, "mcp", "--out", out] + (["--tools", spec] if spec else [])
        p = subprocess.run(argv, input="".join(json.dumps(m) + "\n" for m in msgs).encode(),
                           capture_output=True, timeout=120)
    for line in p.stdout.split(b"\n"):
        if line and json.loads(line).get("id") == 2:
            tools = json.loads(line)["result"]["tools"]
            per_tool = {t["name"]: len(json.dumps(t, separators=(",", ":"), ensure_ascii=False).encode())
                        for t in tools}
            return {"bytes": len(line), "tools": len(tools), "per_tool": per_tool}
    sys.exit(f"no tools/list answer from {' '.join(argv)}: {p.stderr.decode()[-500:]}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--goblin", required=True)
    ap.add_argument("specs", nargs="*",
                    default=["", "all", "audit", "triage", "store", "trace", "scale", "hardware", "kernel"])
    a = ap.parse_args()
    print(json.dumps({(s or "default"): measure(a.goblin, s) for s in a.specs}, indent=1))


if __name__ == "__main__":
    main()
