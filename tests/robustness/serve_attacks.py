#!/usr/bin/env python3
"""Hostile clients against a real `goblin serve` (docs/robustness.md, "Network and server
attacks"): oversized and endless request heads, drip-fed heads (slowloris), chunked and compressed
bodies, many Range ranges, foreign Host names (DNS rebinding), the store's path in answers and a
verb's timeout over HTTP. The server is started here on a store made with `goblin store add` from a
committed fixture; after every attack it must still answer, and its memory must stay bounded.

usage: serve_attacks.py GOBLIN SOURCE_DIR
"""
import gzip
import json
import os
import re
import socket
import subprocess
import sys
import tempfile
import threading
import time

GOBLIN, SRC = sys.argv[1], sys.argv[2]
failures = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what, flush=True)
    if not cond:
        failures.append(what)


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def exchange(port, raw, timeout=15.0):
    """Sends raw bytes, returns (status or None, headers text, body bytes)."""
    s = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    try:
        s.sendall(raw)
        data = b""
        while True:
            try:
                chunk = s.recv(65536)
            except (ConnectionResetError, socket.timeout):
                break
            if not chunk:
                break
            data += chunk
    finally:
        s.close()
    head, _, body = data.partition(b"\r\n\r\n")
    m = re.match(rb"HTTP/1\.[01] (\d+)", head)
    return (int(m.group(1)) if m else None), head.decode("latin-1"), body


def get(port, path, headers=()):
    h = "".join(f"{k}: {v}\r\n" for k, v in headers)
    if not any(k.lower() == "host" for k, _ in headers):
        h = f"Host: 127.0.0.1:{port}\r\n" + h
    return exchange(port, f"GET {path} HTTP/1.1\r\n{h}\r\n".encode())


def healthy(port):
    st, _, body = get(port, "/api/health")
    return st == 200 and b'"ok":true' in body


def main():
    work = tempfile.mkdtemp(prefix="goblin-serve-attacks-")
    store = os.path.join(work, "store.db")
    subprocess.run([GOBLIN, "store", "add", "--store", store,
                    os.path.join(SRC, "tests/fixtures/h100_audit_rounds/base")], check=True, capture_output=True)
    root = os.path.join(work, "root")
    os.makedirs(root)
    with open(os.path.join(SRC, "tests/fixtures/kineto/kineto_2026_occupancy_cuda_sync.json"), "rb") as f:
        open(os.path.join(root, "t.json"), "wb").write(f.read())
    srv = subprocess.Popen([GOBLIN, "serve", "--store", store, "--port", "0", "--root", root, "--token", "t0k"],
                           stderr=subprocess.PIPE, text=True)
    try:
        line = srv.stderr.readline()
        port = int(re.search(r":(\d+)/", line).group(1))
        run(port, srv.pid, work)
    finally:
        srv.terminate()
        try:
            srv.wait(10)
        except subprocess.TimeoutExpired:
            srv.kill()
            srv.wait()
    if failures:
        print(f"{len(failures)} failed", file=sys.stderr)
        sys.exit(1)


def run(port, pid, work):
    check(healthy(port), "the server answers")
    art = json.loads(get(port, "/api/runs/1")[2])["artifacts"]
    sha = max(art, key=lambda a: a.get("bytes", 0) or 0)["sha256"]
    st, _, whole = get(port, f"/api/artifacts/{sha}")
    check(st == 200 and len(whole) > 0, f"artifact {sha[:12]} read whole ({len(whole)} bytes)")

    # Ranges: one is served; many are ignored (the whole content once, never one copy a range).
    st, _, body = get(port, f"/api/artifacts/{sha}", [("Range", "bytes=0-9")])
    check(st == 206 and body == whole[:10], "one Range: 206 with those 10 bytes")
    for n in (64, 1000):
        st, _, body = get(port, f"/api/artifacts/{sha}", [("Range", "bytes=" + ",".join(["0-"] * n))])
        check(st in (200, 416) and len(body) <= len(whole), f"{n} ranges `0-`: HTTP {st}, {len(body)} bytes")
    check(healthy(port), "still answers after the ranges")

    # Host: a rebinding name is refused, loopback names are answered.
    for host, want in (("evil.example", 421), (f"evil.example:{port}", 421), (f"localhost:{port}", 200),
                       (f"[::1]:{port}", 200), ("127.0.0.1", 200)):
        st, _, _ = get(port, "/api/runs", [("Host", host)])
        check(st == want, f"Host: {host} -> {st} (want {want})")
    st, _, _ = get(port, "/", [("Host", "rebind.attacker.test")])
    check(st == 421, f"the page itself under a foreign Host -> {st}")

    # The store's location is in no answer, errors included.
    for path in ("/api/runs/999", "/api/v1/store/show?run=999", "/api/compare?a=1&b=999"):
        _, _, body = get(port, path)
        check(work.encode() not in body, f"{path}: the store's folder is not named")

    # Heads: too many header lines, a line that never ends, a head that never ends.
    many = "".join(f"X-H{i}: {i}\r\n" for i in range(1000))
    st, _, _ = exchange(port, f"GET /api/health HTTP/1.1\r\nHost: localhost\r\n{many}\r\n".encode())
    check(st == 431, f"1,000 header lines -> {st}")
    before = rss_kib(pid)
    s = socket.create_connection(("127.0.0.1", port), timeout=10)
    s.sendall(b"GET /api/health HTTP/1.1\r\nHost: localhost\r\nX-Endless: ")
    sent = 0
    try:
        while sent < (64 << 20):
            s.sendall(b"a" * 65536)
            sent += 65536
    except OSError:
        pass
    s.close()
    grown = (rss_kib(pid) - before) / 1024
    check(sent < (64 << 20) and grown < 32,
          f"an endless header line: cut off after {sent >> 10} KiB sent, RSS grew {grown:.1f} MiB")

    # Slowloris: 8 connections (the worker count) send a header line every 3 s; a normal request
    # meanwhile is answered at once, and the drip-feeders are cut off at the 10 s head deadline.
    drips = []
    stop = threading.Event()

    def drip():
        c = socket.create_connection(("127.0.0.1", port), timeout=30)
        drips.append(c)
        try:
            c.sendall(b"GET /api/health HTTP/1.1\r\nHost: localhost\r\n")
            i = 0
            while not stop.wait(3):
                c.sendall(f"X-Drip-{i}: x\r\n".encode())
                i += 1
        except OSError:
            pass

    threads = [threading.Thread(target=drip) for _ in range(8)]
    for t in threads:
        t.start()
    time.sleep(3.5)
    t0 = time.monotonic()
    ok = healthy(port)
    waited = time.monotonic() - t0
    check(ok and waited < 2, f"a request during 8 slowloris connections answered in {waited:.2f} s")
    stop.set()
    for t in threads:
        t.join()
    for c in drips:
        c.close()

    # Bodies: chunked (no length) and compressed bodies are refused before they are read.
    st, _, _ = exchange(port, b"POST /api/runs HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer t0k\r\n"
                        b"Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n" +
                        b"100000\r\n" + b"{" * 0x100000 + b"\r\n")
    check(st == 411, f"a chunked body -> {st}")
    bomb = gzip.compress(b"{" * (64 << 20))
    before = rss_kib(pid)
    st, _, _ = exchange(port, b"POST /api/runs HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer t0k\r\n"
                        b"Content-Type: application/json\r\nContent-Encoding: gzip\r\n" +
                        f"Content-Length: {len(bomb)}\r\n\r\n".encode() + bomb)
    grown = (rss_kib(pid) - before) / 1024
    check(st == 415 and grown < 32, f"a gzip body of {len(bomb) >> 10} KiB (64 MiB inflated) -> {st}, "
          f"RSS grew {grown:.1f} MiB")

    # A verb's timeout over HTTP is the server's at most (query's own default is 600 s).
    t0 = time.monotonic()
    st, _, body = get(port, "/api/v1/query?path=t.json&timeout=600&sql=" +
                      "WITH%20RECURSIVE%20c(x)%20AS%20(SELECT%201%20UNION%20ALL%20SELECT%20x%2B1%20FROM%20c)"
                      "%20SELECT%20count(*)%20FROM%20c")
    took = time.monotonic() - t0
    check(st is not None and st >= 400 and took < 15, f"an endless query asking 600 s stopped after {took:.1f} s")
    check(healthy(port), "the server answers after every attack")
    st, _, body = get(port, "/api/runs")
    check(json.loads(body)["total"] == 1, "nothing hostile wrote to the store")


if __name__ == "__main__":
    main()
