#!/usr/bin/env python3
"""goblin's network clients and store readers against hostile peers (docs/robustness.md, "Network
and server attacks"): a PostgreSQL address that accepts and never answers, an HTTP server that
drips its answer or never ends it (profile-server), a store holding a recursive view where a table
belongs, and traces whose GPU names are invalid UTF-8. Each peer is started here; each goblin must
end, with a clear error or a result, within seconds.

usage: hostile_peers.py GOBLIN SOURCE_DIR
"""
import gzip
import json
import os
import shutil
import socket
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time

GOBLIN, SRC = sys.argv[1], sys.argv[2]
FIX = os.path.join(SRC, "tests", "fixtures")
TRACE = os.path.join(FIX, "kineto", "kineto_2026_occupancy_cuda_sync.json")
failures = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what, flush=True)
    if not cond:
        failures.append(what)


def goblin(args, timeout=60):
    t0 = time.monotonic()
    try:
        p = subprocess.run([GOBLIN, *args], capture_output=True, text=True, timeout=timeout,
                           env={**os.environ, "GOBLIN_STORE": ""})
        return p.returncode, p.stdout + p.stderr, time.monotonic() - t0
    except subprocess.TimeoutExpired:
        return None, "", time.monotonic() - t0


class Listener:
    """A TCP server on 127.0.0.1 whose `serve(conn)` runs for each connection, in a thread."""

    def __init__(self, serve):
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(64)
        self.port = self.sock.getsockname()[1]
        self.conns = []
        self.serve = serve
        threading.Thread(target=self.loop, daemon=True).start()

    def loop(self):
        while True:
            try:
                c, _ = self.sock.accept()
            except OSError:
                return
            self.conns.append(c)
            threading.Thread(target=self.guard, args=(c,), daemon=True).start()

    def guard(self, c):
        try:
            self.serve(c)
        except OSError:
            pass

    def close(self):
        self.sock.close()
        for c in self.conns:
            c.close()


def never_answer(conn):
    time.sleep(3600)


def postgres_that_never_answers(work):
    peer = Listener(never_answer)
    url = f"postgresql://goblin:secret@127.0.0.1:{peer.port}/goblin"
    runs = {
        "store ls": ["store", "ls", "--store", url],
        "query --store --timeout 5": ["query", "--store", url, "--sql", "SELECT 1", "--timeout", "5"],
        "metrics --store": ["metrics", TRACE, "--store", url],
        "serve": ["serve", "--store", url, "--port", "0"],
    }
    out = {}
    threads = [threading.Thread(target=lambda k=k, a=a: out.__setitem__(k, goblin(a, timeout=60)))
               for k, a in runs.items()]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    peer.close()
    for k, (rc, text, took) in out.items():
        check(rc not in (None, 0) and took < 30 and "secret" not in text,
              f"{k} on a PostgreSQL address that never answers: exit {rc} after {took:.1f} s")
        # metrics still prints its result; the store's error is what ends it non-zero.


def dripping_http(conn):
    conn.recv(65536)
    for _ in range(100):
        conn.sendall(b"H")
        time.sleep(4)


def endless_http(conn):
    conn.recv(65536)
    conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100000000000\r\n\r\n")
    block = b"x" * 65536
    while True:
        conn.sendall(block)


def profile_server(work):
    for name, serve, want in (("sends one byte every 4 s", dripping_http, "within 5 s"),
                              ("answers /start_profile with an endless body", endless_http, "larger than")):
        peer = Listener(serve)
        rc, text, took = goblin(["profile-server", f"http://127.0.0.1:{peer.port}", "-o",
                                 os.path.join(work, "prof"), "--timeout", "5"], timeout=60)
        peer.close()
        check(rc not in (None, 0) and took < 15 and want in text,
              f"profile-server --timeout 5, a server that {name}: exit {rc} after {took:.1f} s "
              f"({text.strip().splitlines()[-1][:120] if text.strip() else 'no message'})")


def recursive_view_store(work):
    store = os.path.join(work, "view.db")
    rc, text, _ = goblin(["store", "add", "--store", store, os.path.join(FIX, "h100_audit_rounds", "base")])
    assert rc == 0, text
    c = sqlite3.connect(store)
    c.execute("PRAGMA foreign_keys=OFF")
    c.execute("DROP TABLE run_tags")
    c.execute("CREATE VIEW run_tags (run_id, tag) AS WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL "
              "SELECT n + 1 FROM r) SELECT n, 't' FROM r")
    c.commit()
    c.close()
    rc, text, took = goblin(["store", "ls", "--store", store], timeout=30)
    check(rc == 5 and took < 5 and "view named 'run_tags'" in text,
          f"store ls on a store whose run_tags is a recursive view: exit {rc} after {took:.1f} s")


def invalid_utf8_names(work):
    rocpd = os.path.join(work, "bad_agent.rocpd.db")
    with gzip.open(os.path.join(FIX, "rocpd", "two_process_gfx950.rocpd.db.gz")) as f, open(rocpd, "wb") as o:
        shutil.copyfileobj(f, o)
    c = sqlite3.connect(rocpd)
    for (t,) in c.execute("SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'rocpd_info_agent%'"):
        c.execute(f"UPDATE {t} SET name = CAST(X'6766789fff' AS TEXT), product_name = CAST(X'41ff42' AS TEXT) "
                  "WHERE type = 'GPU'")
    c.commit()
    c.close()
    nsys = os.path.join(work, "bad_gpu.sqlite")
    shutil.copy(os.path.join(FIX, "nsight", "nsys_2026_export.sqlite"), nsys)
    c = sqlite3.connect(nsys)
    c.execute("UPDATE TARGET_INFO_GPU SET name = CAST(X'48ff313030' AS TEXT)")
    c.commit()
    c.close()
    for name, path in (("a rocpd agent name", rocpd), ("an Nsight GPU name", nsys)):
        rc, text, _ = goblin(["triage", path, "-o", os.path.join(work, "triage_" + os.path.basename(path)), "--json"])
        env = json.loads(text[:text.rfind("}") + 1]) if "{" in text else {}
        check(rc == 0 and env.get("ok") is True, f"triage with invalid UTF-8 in {name}: exit {rc}")


PEAK = r"""
import resource, subprocess, sys
p = subprocess.run(sys.argv[1:], capture_output=True)
sys.stdout.buffer.write(p.stdout)
print(f"\nPEAK_KIB {resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss} RC {p.returncode}")
"""


def huge_query_rows(work):
    # 150 bytes of SQL, 180 MB of values: 3,000 rows of 60,000 characters.
    sql = ("WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c LIMIT 3000) "
           "SELECT x, printf('%.60000c', 'x') FROM c")
    p = subprocess.run([sys.executable, "-c", PEAK, GOBLIN, "query", TRACE, "--format", "json", sql],
                       capture_output=True, text=True, timeout=120)
    out, _, tail = p.stdout.rpartition("\nPEAK_KIB ")
    peak_mib = int(tail.split()[0]) / 1024
    rc = int(tail.split()[2])
    try:
        res = json.loads(out)
    except ValueError:
        res = {}
    check(rc == 0 and res.get("truncated") is True and "truncated_note" in res and peak_mib < 300,
          f"query --format json of 180 MB of rows: exit {rc}, {res.get('row_count')} rows kept, "
          f"peak RSS {peak_mib:.0f} MiB ({res.get('truncated_note', '')[:60]})")


def main():
    work = tempfile.mkdtemp(prefix="goblin-hostile-peers-")
    try:
        threads = [threading.Thread(target=f, args=(work,))
                   for f in (postgres_that_never_answers, profile_server)]
        for t in threads:
            t.start()
        recursive_view_store(work)
        invalid_utf8_names(work)
        huge_query_rows(work)
        for t in threads:
            t.join()
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if failures:
        print(f"{len(failures)} failed", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
