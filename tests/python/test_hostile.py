"""Hostile use of the Python module (docs/robustness.md, "Network and server attacks"): several
threads' first queries at once, and None where a verb name or a path belongs."""
import os
import pathlib
import subprocess
import sys

import pytest

import goblin

FIX = pathlib.Path(os.environ.get("GOBLIN_FIXTURES", pathlib.Path(__file__).parents[2] / "tests" / "fixtures"))
TRACE = str(FIX / "kineto" / "kineto_2026_occupancy_cuda_sync.json")

# Run in a fresh interpreter each time: the hazard is the module's first use, racing.
TWO_THREADS = """
import sys, threading, goblin
t = sys.argv[1]
out = []
def first_query():
    out.append(len(goblin.load(t).sql("SELECT count(*) AS n FROM gpu_ops")))
threads = [threading.Thread(target=first_query) for _ in range(4)]
for th in threads: th.start()
for th in threads: th.join()
print(sorted(out))
"""


def test_threads_first_queries_at_once_do_not_deadlock():
    for _ in range(5):
        p = subprocess.run([sys.executable, "-c", TWO_THREADS, TRACE], capture_output=True, text=True, timeout=60,
                           env=os.environ)
        assert p.returncode == 0, p.stderr
        assert p.stdout.strip() == "[1, 1, 1, 1]", p.stdout


def test_none_arguments_raise_type_error():
    with pytest.raises(TypeError):
        goblin.run(None)
    with pytest.raises(TypeError):
        goblin.text(None)
    with pytest.raises(TypeError):
        goblin.run("info", None)
    with pytest.raises(TypeError):
        goblin.load(None)
    with pytest.raises(TypeError):
        goblin.load([TRACE, None])
