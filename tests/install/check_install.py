#!/usr/bin/env python3
"""goblin installed, used from elsewhere (issue #26).

Default mode: `cmake --install BUILD --prefix TMP/prefix` (nothing else is copied), then, from a
working directory outside the checkout with HOME and TMPDIR in the temporary tree and no GOBLIN_*
variable set, runs the installed `goblin --version`, `triage`, `audit --replay`, `kernel init` and
`mcp` (initialize, tools/list, one tools/call) on inputs copied out of the checkout, and checks what
each wrote. When strace works, every command runs under it and no file path under the checkout (the
source tree, which holds the build tree) may appear in its file system calls: the installed goblin
finds its files beside its own binary, never through the tree it was built from.

--deb mode: `cpack -G DEB` into a temporary directory, then checks the package's name, its
dependencies and its file list (`dpkg-deb -c`). Exits 77 (skipped) when dpkg-deb is missing.
"""
import argparse
import json
import os
import signal
import re
import shutil
import subprocess
import sys
import tempfile

SKIP = 77


def fail(msg):
    print("FAIL: " + msg, file=sys.stderr)
    sys.exit(1)


def check(cond, msg):
    if not cond:
        fail(msg)


def run(argv, **kw):
    p = subprocess.run(argv, capture_output=True, text=True, **kw)
    return p


def strace_works():
    if not shutil.which("strace"):
        return False
    return run(["strace", "-f", "-qq", "-e", "trace=%file", "-o", os.devnull, "true"]).returncode == 0


class Installed:
    def __init__(self, prefix, work, env, checkout, use_strace, logs):
        self.goblin = os.path.join(prefix, "bin", "goblin")
        self.work, self.env, self.checkout = work, env, checkout
        self.use_strace, self.logs, self.n = use_strace, logs, 0

    def __call__(self, args, stdin=None, name=None):
        """Runs the installed goblin in the work directory; under strace, also checks its file calls."""
        self.n += 1
        argv = [self.goblin] + args
        log = os.path.join(self.logs, "strace.%d.%s" % (self.n, name or args[0]))
        if self.use_strace:
            argv = ["strace", "-f", "-qq", "-e", "trace=%file", "-s", "4096", "-o", log] + argv
        p = subprocess.run(argv, cwd=self.work, env=self.env, input=stdin, capture_output=True, text=True,
                           timeout=300)
        if self.use_strace:
            with open(log, errors="replace") as f:
                text = f.read()
            for root in self.checkout:
                for line in text.splitlines():
                    if ('"' + root + '/') in line or ('"' + root + '"') in line:
                        fail("goblin %s touched the checkout it was built from:\n  %s" % (" ".join(args), line))
        return p


def install_mode(a):
    build, source = os.path.abspath(a.build), os.path.abspath(a.source)
    checkout = sorted({source, os.path.realpath(source), build, os.path.realpath(build)})
    tmp = tempfile.mkdtemp(prefix="goblin_install_")
    prefix, work, home, inputs, logs = (os.path.join(tmp, d) for d in ("prefix", "work", "home", "inputs", "logs"))
    for d in (work, home, inputs, logs, os.path.join(tmp, "tmp")):
        os.makedirs(d)

    p = run([a.cmake, "--install", build, "--prefix", prefix])
    check(p.returncode == 0, "cmake --install failed:\n" + p.stdout + p.stderr)

    # ---- the layout ----
    want = ["bin/goblin", "share/goblin/tools/measure_ceilings.py", "share/goblin/tools/kernel_harness.py",
            "share/goblin/tools/kernel_timing.py",
            "share/goblin/workloads/train.py", "share/goblin/workloads/goblin_hook/sitecustomize.py",
            "share/goblin/workloads/goblin_hook/goblin_ops.cpp", "share/goblin/workloads/goblin_hook/goblin_ops_abi.h",
            "share/goblin/workloads/configs/base.yaml", "share/goblin/web/static/index.html",
            "share/goblin/web/static/app.js", "share/goblin/web/static/style.css"]
    if os.path.exists(os.path.join(build, "libgoblin_cupti.so")):
        want.append("lib/libgoblin_cupti.so")
    has_chart = os.path.exists(os.path.join(source, "web/node_modules/chart.js/dist/chart.umd.js"))
    if has_chart:
        want.append("share/goblin/web/chart.umd.js")
    # The Python module (GOBLIN_PYTHON): the package under lib/python3/dist-packages, importable
    # from there alone (docs/python.md).
    pydir = os.path.join(prefix, "lib/python3/dist-packages")
    py_built = os.path.isdir(os.path.join(build, "python/goblin"))
    if py_built:
        want.append("lib/python3/dist-packages/goblin/__init__.py")
        check(any(f.startswith("_goblin") and f.endswith(".so") for f in os.listdir(os.path.join(pydir, "goblin"))),
              "not installed: the goblin._goblin extension")
    for rel in want:
        check(os.path.isfile(os.path.join(prefix, rel)), "not installed: " + rel)
    check(os.access(os.path.join(prefix, "bin/goblin"), os.X_OK), "bin/goblin is not executable")
    if py_built:
        cache = os.path.join(build, "CMakeCache.txt")
        py = next((line.split("=", 1)[1].strip() for line in open(cache) if line.startswith("GOBLIN_PYTHON_EXECUTABLE:")),
                  "python3")
        p = subprocess.run([py, "-c", "import goblin; print(goblin.__file__, len(goblin.verbs()))"], cwd=work,
                           env={**os.environ, "PYTHONPATH": pydir}, capture_output=True, text=True, timeout=120)
        check(p.returncode == 0 and p.stdout.startswith(pydir), "installed goblin module:\n" + p.stdout + p.stderr)
    for dirpath, _, files in os.walk(prefix):
        check("goblin-runtime-root" not in files, "the build tree's goblin-runtime-root was installed")
    with open(os.path.join(prefix, "bin/goblin"), "rb") as f:
        blob = f.read()
    for root in checkout:
        check(root.encode() not in blob, "bin/goblin holds the build path " + root)
    print("layout: %d files checked; no goblin-runtime-root; bin/goblin names no path of %s" % (len(want), source))

    # ---- inputs copied out of the checkout ----
    shutil.copytree(os.path.join(source, "examples/h100_llama"), os.path.join(inputs, "h100_llama"))
    shutil.copy(os.path.join(source, "examples/kernel/softmax/v0.py"), os.path.join(inputs, "softmax_v0.py"))
    trace = os.path.join(inputs, "h100_llama", "h100_llama_bf16_sdpa_w4.json.gz")

    env = {k: v for k, v in os.environ.items() if not k.startswith("GOBLIN_")}
    env.update(HOME=home, TMPDIR=os.path.join(tmp, "tmp"), XDG_CACHE_HOME=os.path.join(home, ".cache"),
               XDG_DATA_HOME=os.path.join(home, ".local/share"), PWD=work)
    use_strace = strace_works()
    print("strace: " + ("every command runs under strace -e trace=%file" if use_strace
                        else "not usable here; the file-access check is skipped"))
    g = Installed(prefix, work, env, checkout, use_strace, logs)

    # --version: version and commit
    p = g(["--version"], name="version")
    check(p.returncode == 0, "--version failed: " + p.stderr)
    m = re.fullmatch(r"goblin (\S+) \(commit (\S+)\)\s*", p.stdout)
    check(m is not None, "--version printed " + repr(p.stdout))
    version, commit = m.group(1), m.group(2)
    check(commit != "", "empty commit")
    build_info = {"version": version, "commit": commit}
    print("version: " + p.stdout.strip())

    # triage
    p = g(["triage", trace, "-o", "out/triage"])
    check(p.returncode == 0, "triage failed (%d):\n%s%s" % (p.returncode, p.stdout, p.stderr))
    meta = json.load(open(os.path.join(work, "out/triage/profile_metadata.json")))
    check(meta.get("goblin") == build_info, "profile_metadata.json goblin = %r" % meta.get("goblin"))
    summary = open(os.path.join(work, "out/triage/profile_summary.md")).read()
    check("H100" in summary or "h100" in summary.lower(), "profile_summary.md does not name the GPU")
    print("triage: profile_metadata.json goblin=%s, profile_summary.md %d bytes" % (meta["goblin"], len(summary)))

    # audit --replay
    cfg = os.path.join(inputs, "h100_llama", "config_before.yaml")
    p = g(["audit", cfg, "--replay", os.path.join(inputs, "h100_llama"), "-o", "out/audit"])
    check(p.returncode == 0, "audit --replay failed (%d):\n%s%s" % (p.returncode, p.stdout, p.stderr))
    rep = json.load(open(os.path.join(work, "out/audit/report.json")))
    check(rep.get("schema") == "goblin.report/1", "report.json schema %r" % rep.get("schema"))
    check(rep.get("goblin") == build_info, "report.json goblin = %r" % rep.get("goblin"))
    for f in ("report.md", "report.html"):
        check(os.path.getsize(os.path.join(work, "out/audit", f)) > 0, f + " is empty")
    print("audit --replay: report.json schema %s, goblin=%s, %d keys" % (rep["schema"], rep["goblin"], len(rep)))

    # kernel init: the harness comes from share/goblin/tools
    p = g(["kernel", "init", "sm", "--kernel", os.path.join(inputs, "softmax_v0.py"), "--platform", "H100",
           "--shape", "M=32768,N=8192", "--workspace", os.path.join(work, "ws"), "--json"], name="kernel_init")
    check(p.returncode == 0, "kernel init failed (%d):\n%s%s" % (p.returncode, p.stdout, p.stderr))
    j = json.loads(p.stdout)
    check(j.get("ok") is True, "kernel init: " + p.stdout[:2000])
    check(j["result"]["roofline"]["bound"] == "memory_bound", "kernel init roofline: %r" % j["result"]["roofline"])
    check(os.path.isfile(os.path.join(work, "ws", "workspace.json")), "kernel init wrote no workspace.json")
    if use_strace:
        harness = os.path.join(prefix, "share/goblin/tools/kernel_harness.py")
        log = [f for f in os.listdir(logs) if f.endswith("kernel_init")][0]
        check(harness in open(os.path.join(logs, log)).read(), "kernel init did not run " + harness)
    print("kernel init: ok, roofline bound=%s, harness from the prefix" % j["result"]["roofline"]["bound"])

    # mcp over stdio
    msgs = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize",
         "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                    "clientInfo": {"name": "install-test", "version": "1"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
        {"jsonrpc": "2.0", "id": 3, "method": "tools/call",
         "params": {"name": "info", "arguments": {"path": trace}}},
    ]
    p = g(["mcp", "--root", inputs, "-o", "out/mcp"], stdin="".join(json.dumps(x) + "\n" for x in msgs))
    check(p.returncode == 0, "mcp exited %d:\n%s" % (p.returncode, p.stderr))
    replies = {}
    for line in p.stdout.splitlines():
        if line.strip():
            r = json.loads(line)
            if "id" in r:
                replies[r["id"]] = r
    check(set(replies) == {1, 2, 3}, "mcp answered ids %r:\n%s" % (sorted(replies), p.stdout[:2000]))
    init = replies[1].get("result", {})
    check(init.get("serverInfo", {}).get("name") == "goblin", "mcp initialize: %r" % replies[1])
    tools = [t["name"] for t in replies[2]["result"]["tools"]]
    for t in ("info", "triage", "compare_runs"):
        check(t in tools, "mcp tools/list lacks %s: %r" % (t, tools))
    call = replies[3].get("result", {})
    check(call.get("isError") is False and "structuredContent" in call, "mcp info call: %r" % replies[3])
    print("mcp: initialize (protocol %s), tools/list %d tools, tools/call info ok"
          % (init.get("protocolVersion"), len(tools)))

    # ---- goblin serve finds its pages and chart library under share/goblin/web ----
    store = "sqlite://" + os.path.join(work, "runs.db")
    p = g(["store", "add", "out/triage", "--store", store], name="store_add")
    check(p.returncode == 0, "store add exited %d:\n%s" % (p.returncode, p.stderr))
    argv = [g.goblin, "serve", "--store", store, "--port", "0"]
    log = os.path.join(logs, "strace.serve")
    if use_strace:
        argv = ["strace", "-f", "-qq", "-e", "trace=%file", "-s", "4096", "-o", log] + argv
    # Its own process group: stopping it must reach goblin as well as strace (a SIGTERM to strace
    # alone detaches it and leaves goblin serving, holding ctest's output pipe open).
    srv = subprocess.Popen(argv, cwd=work, env=env, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        line = srv.stderr.readline()
        m = re.search(r"listening on http://([^/]+)/", line)
        check(m, "goblin serve did not listen: %r" % line)
        host, port = m.group(1).rsplit(":", 1)
        import http.client
        pages = ["/", "/static/app.js", "/api/runs"] + (["/static/chart.umd.js"] if has_chart else [])
        for path in pages:
            c = http.client.HTTPConnection(host, int(port), timeout=30)
            c.request("GET", path)
            r = c.getresponse()
            body = r.read()
            check(r.status == 200 and body, "installed goblin serve: GET %s -> %d" % (path, r.status))
    finally:
        os.killpg(srv.pid, signal.SIGTERM)
        try:
            srv.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(srv.pid, signal.SIGKILL)
            srv.wait(timeout=30)
    if use_strace:
        with open(log, errors="replace") as f:
            for l in f.read().splitlines():
                for root in checkout:
                    if ('"' + root + '/') in l:
                        fail("goblin serve touched the checkout it was built from:\n  " + l)
    print("serve: %s served from share/goblin/web" % ", ".join(pages))

    shutil.rmtree(tmp)
    print("PASS")
    return 0


def deb_mode(a):
    if not shutil.which("dpkg-deb"):
        print("SKIP: dpkg-deb not found (the .deb check needs dpkg)")
        return SKIP
    build = os.path.abspath(a.build)
    tmp = tempfile.mkdtemp(prefix="goblin_deb_")
    p = run([a.cpack, "-G", "DEB", "--config", os.path.join(build, "CPackConfig.cmake"), "-B", tmp])
    check(p.returncode == 0, "cpack -G DEB failed:\n" + p.stdout + p.stderr)
    debs = [f for f in os.listdir(tmp) if re.fullmatch(r"goblin_.*\.deb", f)]
    check(len(debs) == 1, "cpack made %r" % os.listdir(tmp))
    deb = os.path.join(tmp, debs[0])
    field = lambda k: run(["dpkg-deb", "-f", deb, k]).stdout.strip()
    check(field("Package") == "goblin", "Package: " + field("Package"))
    depends = field("Depends")
    check("libc6" in depends, "Depends lacks libc6: " + depends)
    listing = run(["dpkg-deb", "-c", deb]).stdout
    files = {line.split()[-1] for line in listing.splitlines() if line.strip()}
    want = ["./usr/bin/goblin", "./usr/share/goblin/tools/measure_ceilings.py",
            "./usr/share/goblin/tools/kernel_harness.py", "./usr/share/goblin/tools/kernel_timing.py",
            "./usr/share/goblin/workloads/train.py",
            "./usr/share/goblin/workloads/goblin_hook/sitecustomize.py",
            "./usr/share/goblin/workloads/goblin_hook/goblin_ops.cpp",
            "./usr/share/goblin/workloads/configs/base.yaml"]
    if os.path.exists(os.path.join(build, "libgoblin_cupti.so")):
        want.append("./usr/lib/libgoblin_cupti.so")
    for w in want:
        check(w in files, "%s not in dpkg-deb -c:\n%s" % (w, listing))
    check(not any("goblin-runtime-root" in f for f in files), "the .deb holds goblin-runtime-root")
    print("deb: %s, Depends: %s" % (debs[0], depends))
    print("\n".join(sorted(f for f in files if not f.endswith("/"))))
    shutil.rmtree(tmp)
    print("PASS")
    return 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", required=True)
    ap.add_argument("--source", required=True)
    ap.add_argument("--cmake", default="cmake")
    ap.add_argument("--cpack", default="cpack")
    ap.add_argument("--deb", action="store_true", help="check the cpack -G DEB package instead")
    a = ap.parse_args()
    return deb_mode(a) if a.deb else install_mode(a)


if __name__ == "__main__":
    sys.exit(main())
