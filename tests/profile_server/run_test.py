#!/usr/bin/env python3
"""`goblin profile-server` against a server of our own (no SGLang or vLLM server was reachable
where goblin is developed): a Python stdlib HTTP server that implements the profiling endpoints
as the projects document them and writes a real serving trace from the fixtures.

- "sglang": POST /start_profile takes ProfileReqInput's JSON (output_dir, num_steps, activities,
  profile_by_stage, ...); with num_steps it writes the trace by itself after those steps (here
  0.3 s), else POST /stop_profile writes it before answering. Files are named like SGLang's:
  <profile_id>-TP-0.trace.json.gz, with -EXTEND / -DECODE when profile_by_stage.
- "vllm": POST /start_profile and /stop_profile with no body; the trace goes to the directory
  the server was started with (VLLM_TORCH_PROFILER_DIR), named <host>_<pid>.pt.trace.json.gz.
- "vllm-off": a vLLM server started without profiling: the routes do not exist (404).
- "silent": accepts both calls but never writes a trace.

  run_test.py --goblin build/goblin --fixtures tests/fixtures
"""
import argparse
import http.server
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time

DECODE = "kineto/mi300x_sglang_qwen3_8b_decode.json.gz"
PREFILL = "kineto/mi300x_sglang_qwen3_8b_prefilldecode.json.gz"


class Fake(http.server.ThreadingHTTPServer):
    def __init__(self, mode, fixtures, vllm_dir=None):
        super().__init__(("127.0.0.1", 0), Handler)
        self.mode, self.fixtures, self.vllm_dir = mode, fixtures, vllm_dir
        self.calls, self.req = [], None

    def write_traces(self):
        req = self.req or {}
        if self.mode == "vllm":
            shutil.copy(os.path.join(self.fixtures, DECODE), os.path.join(self.vllm_dir, "host_4242.pt.trace.json.gz"))
            return
        out = req.get("output_dir") or "/tmp"
        if req.get("profile_by_stage"):
            shutil.copy(os.path.join(self.fixtures, PREFILL), os.path.join(out, "1732600000-TP-0-EXTEND.trace.json.gz"))
            shutil.copy(os.path.join(self.fixtures, DECODE), os.path.join(out, "1732600000-TP-0-DECODE.trace.json.gz"))
        else:
            shutil.copy(os.path.join(self.fixtures, DECODE), os.path.join(out, "1732600000-TP-0.trace.json.gz"))


class Handler(http.server.BaseHTTPRequestHandler):
    def log_message(self, *a):
        pass

    def reply(self, code, text):
        data = text.encode()
        self.send_response(code)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_POST(self):
        srv = self.server
        n = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(n) if n else b""
        srv.calls.append(self.path)
        if srv.mode == "vllm-off" or self.path not in ("/start_profile", "/stop_profile"):
            return self.reply(404, '{"detail":"Not Found"}')
        if self.path == "/start_profile":
            if srv.mode.startswith("sglang"):
                srv.req = json.loads(body or b"{}")
                if srv.req.get("num_steps"):
                    threading.Timer(0.3, srv.write_traces).start()
            return self.reply(200, "Start profiling.\n")
        if srv.mode in ("sglang", "vllm"):
            srv.write_traces()
        return self.reply(200, "Stop profiling. This will take some time.\n")


def serve(mode, fixtures, vllm_dir=None):
    s = Fake(mode, fixtures, vllm_dir)
    threading.Thread(target=s.serve_forever, daemon=True).start()
    return s, f"http://127.0.0.1:{s.server_address[1]}"


def run(goblin, args):
    t = time.time()
    p = subprocess.run([goblin, "profile-server", *args, "--json"], capture_output=True, text=True, timeout=120)
    try:
        j = json.loads(p.stdout)
    except ValueError:
        j = {}
    return p.returncode, j, p.stdout + p.stderr, time.time() - t


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--goblin", required=True)
    ap.add_argument("--fixtures", required=True)
    a = ap.parse_args()
    failures = []

    def check(name, cond, detail):
        print(("ok   " if cond else "FAIL ") + name)
        if not cond:
            failures.append(f"{name}: {detail[:2000]}")

    with tempfile.TemporaryDirectory() as tmp:
        # SGLang, a time window: start, wait, stop; the trace appears; triage ran on it.
        s, url = serve("sglang", a.fixtures)
        out = os.path.join(tmp, "window")
        code, j, text, _ = run(a.goblin, [url, "--duration", "0.5", "-o", out])
        r = j.get("result", {})
        check("sglang duration: exit 0", code == 0, text)
        check("sglang duration: start then stop", s.calls == ["/start_profile", "/stop_profile"], str(s.calls))
        check("sglang duration: output_dir sent", (s.req or {}).get("output_dir") == os.path.abspath(out), str(s.req))
        check("sglang duration: CPU and GPU activities", (s.req or {}).get("activities") == ["CPU", "GPU"], str(s.req))
        check("sglang duration: trace found", r.get("trace", "").endswith("-TP-0.trace.json.gz"), text)
        check("sglang duration: triaged", r.get("triage", {}).get("gpu_ops", 0) > 0, text)
        check("sglang duration: artifacts", os.path.exists(os.path.join(out, "triage", "kernel_table.json")),
              str(os.listdir(out)))
        s.shutdown()

        # SGLang, N steps: num_steps sent, the server stops by itself, no /stop_profile.
        s, url = serve("sglang", a.fixtures)
        code, j, text, _ = run(a.goblin, [url, "--steps", "3", "-o", os.path.join(tmp, "steps")])
        check("sglang steps: exit 0", code == 0, text)
        check("sglang steps: num_steps 3", (s.req or {}).get("num_steps") == 3, str(s.req))
        check("sglang steps: no stop call", s.calls == ["/start_profile"], str(s.calls))
        s.shutdown()

        # --target-arch means what it means to triage (the MI300X trace against gfx942: exact, not
        # always unknown), and the linkage fields reach profile_metadata.json.
        s, url = serve("sglang", a.fixtures)
        out = os.path.join(tmp, "arch")
        code, j, text, _ = run(a.goblin, [url, "--steps", "1", "-o", out, "--target-arch", "gfx942",
                                          "--experiment", "exp-7", "--trial", "t-3"])
        meta = j.get("result", {}).get("triage", {}).get("metadata", {})
        check("target arch: exit 0", code == 0, text)
        check("target arch: exact", meta.get("arch_match") == "exact" and meta.get("target_arch") == "gfx942", str(meta))
        try:
            with open(os.path.join(out, "triage", "profile_metadata.json")) as f:
                pm = json.load(f)
        except (OSError, ValueError):
            pm = {}
        check("linkage: profile_metadata.json", pm.get("experiment_id") == "exp-7" and pm.get("trial_id") == "t-3",
              str({k: pm.get(k) for k in ("experiment_id", "trial_id", "field_sources")}))
        s.shutdown()

        # SGLang by stage: profile_by_stage sent, the decode trace analysed.
        s, url = serve("sglang", a.fixtures)
        code, j, text, _ = run(a.goblin, [url, "--steps", "2", "--stage", "decode", "-o", os.path.join(tmp, "st")])
        check("sglang stage: exit 0", code == 0, text)
        check("sglang stage: profile_by_stage", (s.req or {}).get("profile_by_stage") is True, str(s.req))
        check("sglang stage: DECODE trace", j.get("result", {}).get("trace", "").endswith("-DECODE.trace.json.gz"), text)
        s.shutdown()

        # vLLM: no body needed, the trace lands in the server's own profiler directory (-o).
        vdir = os.path.join(tmp, "vllm_dir")
        os.makedirs(vdir)
        s, url = serve("vllm", a.fixtures, vdir)
        code, j, text, _ = run(a.goblin, [url, "--duration", "0.3", "-o", vdir])
        check("vllm: exit 0", code == 0, text)
        check("vllm: .pt.trace.json.gz found", j.get("result", {}).get("trace", "").endswith(".pt.trace.json.gz"), text)
        s.shutdown()

        # vLLM without profiling enabled: 404 on /start_profile, a clear message, exit 7.
        s, url = serve("vllm-off", a.fixtures)
        code, j, text, t = run(a.goblin, [url, "--duration", "0.3", "-o", os.path.join(tmp, "off")])
        check("profiling off: exit 7", code == 7, text)
        check("profiling off: says so", "profiling is not enabled" in text, text)
        s.shutdown()

        # Nothing listening: unreachable, at once.
        sock = socket.socket()
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
        sock.close()
        code, j, text, t = run(a.goblin, [f"http://127.0.0.1:{port}", "--steps", "1", "-o", os.path.join(tmp, "x")])
        check("unreachable: exit 3", code == 3, text)
        check("unreachable: says so", "cannot reach the server" in text, text)
        check("unreachable: no hang", t < 15, f"{t:.1f} s")

        # A server that never writes the trace: ends after --timeout with a clear message.
        s, url = serve("silent", a.fixtures)
        code, j, text, t = run(a.goblin, [url, "--duration", "0.2", "--timeout", "2", "-o", os.path.join(tmp, "never")])
        check("no trace: exit 3", code == 3, text)
        check("no trace: says so", "no trace appeared" in text, text)
        check("no trace: within the timeout", t < 15, f"{t:.1f} s")
        s.shutdown()

        # Not a URL.
        code, j, text, t = run(a.goblin, ["localhost:30000", "--steps", "1", "-o", os.path.join(tmp, "y")])
        check("bad url: exit 2", code == 2, text)

    if failures:
        print("\n".join(failures))
        sys.exit(1)


if __name__ == "__main__":
    main()
