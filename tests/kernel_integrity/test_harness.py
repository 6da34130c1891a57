#!/usr/bin/env python3
"""CPU tests of tools/kernel_harness.py's honest-measurement logic (no torch, no GPU): the timing
loop over rotating, regenerated input sets run against a fake device whose clock the fake kernels
advance; the checks (aliasing, held-out shapes, timer identity, pending work, wall clock) on fake
tensors and numbers. The same tricks run for real on the H100: run_h100.sh, cheats/."""
import importlib.util
import os
import random
import subprocess
import sys
import tempfile
import types
import unittest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
spec = importlib.util.spec_from_file_location("kernel_harness", os.path.join(ROOT, "tools", "kernel_harness.py"))
kh = importlib.util.module_from_spec(spec)
sys.modules["kernel_harness"] = kh
spec.loader.exec_module(kh)


class Storage:
    def __init__(self, ptr, nbytes):
        self.ptr, self.n = ptr, nbytes

    def data_ptr(self):
        return self.ptr

    def nbytes(self):
        return self.n


_next_ptr = [0x10000]


class FakeTensor:
    """A tensor with a storage address: views share it, copy_ keeps it."""

    def __init__(self, values, storage=None):
        self.values = list(values)
        if storage is None:
            storage = Storage(_next_ptr[0], 4 * len(self.values))
            _next_ptr[0] += 4 * len(self.values) + 256
        self.storage = storage

    def untyped_storage(self):
        return self.storage

    def data_ptr(self):
        return self.storage.ptr

    def numel(self):
        return len(self.values)

    def element_size(self):
        return 4

    def copy_(self, src):
        self.values = list(src.values)

    def view(self):
        return FakeTensor(self.values, self.storage)


class FakeDevice:
    """A clock in ms that the kernels and the flush advance; events read it."""

    def __init__(self):
        self.clock = 0.0

    def event(self):
        return types.SimpleNamespace(t=None)

    def record(self, e):
        e.t = self.clock

    def elapsed(self, a, b):
        return b.t - a.t

    def sync(self):
        pass

    def wait(self, e):
        pass

    def perf(self):
        return self.clock / 1e3


class GatedDevice(FakeDevice):
    """Work queued on pooled streams (side) runs only at a device-wide synchronize, after the gate."""

    def __init__(self):
        super().__init__()
        self.side, self.gate = [], None

    def run_side(self):
        while self.side:
            self.side.pop(0)()

    def sync(self):
        if self.gate is not None:
            self.gate.opened = True
        self.run_side()


class FakeGate:
    def __init__(self):
        self.opened, self.closes = True, []

    def close(self, ms):
        self.opened = False
        self.closes.append(ms)

    def closed(self):
        return not self.opened


class Problem:
    """make_inputs/reference of a sum over N values; kernels that cost 1 ms of device time."""

    def __init__(self, dev):
        self.dev, self.rng, self.work = dev, random.Random(0), 0

    def seed(self, s):
        self.rng = random.Random(s)

    def make_inputs(self, N=64):
        return (FakeTensor(self.rng.random() for _ in range(N)),)

    def reference(self, x):
        return FakeTensor([sum(x.values)])

    def honest(self, x):
        self.dev.clock += 1.0
        self.work += 1
        return FakeTensor([sum(x.values)])


def check(o, r, x):
    ok = abs(o.values[0] - r.values[0]) < 1e-9
    return ok, 0.0 if ok else 1.0, 0.0, "" if ok else "wrong"


def run_loop(kernel_of, k=3):
    dev = FakeDevice()
    prob = Problem(dev)
    sets = kh.InputSets(prob, {"N": 64}, k, 100, prob.seed)
    flush = lambda: setattr(dev, "clock", dev.clock + 0.1)  # noqa: E731
    samples, stats, bad = kh.time_rotated(dev, kernel_of(prob), sets, warmup_ms=10, rep_ms=30, flush=flush,
                                          check=check)
    return samples, stats, bad, prob, sets


class TimingLoop(unittest.TestCase):
    def test_honest_kernel_every_output_checked(self):
        samples, stats, bad, prob, _ = run_loop(lambda p: p.honest)
        self.assertIsNone(bad)
        self.assertEqual(len(samples), 27)  # rep 30 ms / estimate 1.1 ms
        self.assertTrue(all(abs(s - 1.0) < 1e-9 for s in samples))
        # every call of warm-up and timing had its output checked (the 2 x 5 estimate calls are not kept)
        # and the untimed heater calls before each timed round are not checked either
        self.assertEqual(stats["outputs_checked"], prob.work - 10 - stats["heat_calls"])
        self.assertGreaterEqual(stats["heat_calls"], stats["rounds"] - 9)

    def test_memoise_by_pointer_returns_stale_results_and_is_caught(self):
        def memo(p):
            cache = {}

            def k(x):
                if x.data_ptr() not in cache:
                    cache[x.data_ptr()] = p.honest(x)
                return cache[x.data_ptr()]
            return k
        _, stats, bad, _, _ = run_loop(memo)
        self.assertIsNotNone(bad)
        self.assertTrue(bad["timed"])  # caught in the first timed round: the warm-up saw the same values
        self.assertEqual(bad["set"], 0)

    def test_memoise_by_content_gains_nothing(self):
        hits = []

        def memo(p):
            cache = {}

            def k(x):
                key = tuple(x.values)
                if key in cache:
                    hits.append(1)
                    return cache[key]
                cache[key] = p.honest(x)
                return cache[key]
            return k
        samples, _, bad, _, _ = run_loop(memo)
        self.assertIsNone(bad)
        # warm-up reuses the first values, but no timed call ever sees values it has seen before
        self.assertTrue(all(abs(s - 1.0) < 1e-9 for s in samples))

    def test_regenerate_keeps_pointers_and_changes_values(self):
        dev = FakeDevice()
        prob = Problem(dev)
        sets = kh.InputSets(prob, {"N": 8}, 2, 7, prob.seed)
        ptrs = [s[0].data_ptr() for s in sets.sets]
        vals = [list(s[0].values) for s in sets.sets]
        sets.regenerate()
        self.assertEqual(ptrs, [s[0].data_ptr() for s in sets.sets])
        self.assertNotEqual(vals, [s[0].values for s in sets.sets])
        self.assertEqual(sets.refs[0].values[0], sum(sets.sets[0][0].values))

    def test_sets_exceed_l2(self):
        self.assertEqual(kh.sets_needed(512 << 20, 50 << 20), 2)
        self.assertEqual(kh.sets_needed(1 << 20, 50 << 20), 100)
        self.assertEqual(kh.sets_needed(1000, 50 << 20), kh.kernel_timing.MAX_SETS)
        self.assertGreater(kh.sets_needed(3 << 20, 50 << 20) * (3 << 20), 50 << 20)


class Checks(unittest.TestCase):
    def test_output_aliasing_an_input(self):
        x = FakeTensor([1.0, 2.0])
        self.assertEqual(kh.overlapping_inputs((x.view(),), (x,)), [(0, 0)])
        self.assertEqual(kh.overlapping_inputs((FakeTensor([3.0]),), (x,)), [])
        ok, _, _, msg = kh.check_output(x.view(), x, (x,), 1e-2, inplace=False)
        self.assertFalse(ok)
        self.assertIn("INPLACE = True", msg)

    def test_held_out_shapes_are_odd_multiples_of_8(self):
        shapes = kh.held_out_shapes({"M": 32768, "N": 8192})
        self.assertEqual(shapes, [{"M": 8200, "N": 2056}, {"M": 2056, "N": 520}])
        for s in shapes:
            for v in s.values():
                self.assertEqual(v % 8, 0)
                self.assertNotEqual(v % 16, 0)
        self.assertEqual(kh.held_out_shapes({"B": 4, "S": 4096})[0], {"B": 4, "S": 1032})

    def test_shape_defaults_come_from_make_inputs(self):
        mod = types.SimpleNamespace(make_inputs=lambda M=32768, N=8192, dtype=None: None)
        self.assertEqual(kh.shape_with_defaults(mod, {"N": 4096}), {"M": 32768, "N": 4096})

    def test_timer_replacement_is_detected(self):
        clock = types.SimpleNamespace(perf_counter=lambda: 1.0)
        event = types.SimpleNamespace(elapsed_time=lambda a, b: 1.0)
        t = kh.Trusted([("time.perf_counter", clock, "perf_counter"), ("Event.elapsed_time", event, "elapsed_time")])
        self.assertEqual(t.tampered(), [])
        event.elapsed_time = lambda a, b: 0.001  # what a cheating kernel file does
        self.assertEqual(t.tampered(), ["Event.elapsed_time"])
        self.assertEqual(t["Event.elapsed_time"](None, None), 1.0)  # the harness keeps the original

    def test_harness_functions_are_watched(self):
        names = kh.harness_callables()
        for f in ("check_output", "max_rel_err", "time_rotated", "judge_wall", "held_out", "bench", "Trusted"):
            self.assertIn(f, names)
        t = kh.Trusted([("kernel_harness." + f, kh, f) for f in names])
        saved = kh.check_output
        try:
            kh.check_output = lambda *a: (True, 0.0, 0.0, "")
            self.assertEqual(t.tampered(), ["kernel_harness.check_output"])
        finally:
            kh.check_output = saved

    def test_timing_module_functions_are_watched(self):
        # The timing loop lives in tools/kernel_timing.py: a kernel file can reach it as
        # sys.modules["kernel_timing"], so its own bindings are trusted slots too.
        kt = kh.kernel_timing
        names = kh.timing_callables()
        for f in ("time_rotated", "InputSets", "judge_wall", "judge_pending", "wall_clock"):
            self.assertIn(f, names)
        t = kh.Trusted([("kernel_timing." + f, kt, f) for f in names])
        saved = kt.judge_wall
        try:
            kt.judge_wall = lambda *a: None
            self.assertEqual(t.tampered(), ["kernel_timing.judge_wall"])
        finally:
            kt.judge_wall = saved

    def test_work_left_running_after_return(self):
        self.assertIsNone(kh.judge_pending([0] * 5, [0.01] * 5, [0.008] * 5))
        self.assertIn("side stream", kh.judge_pending([0, 1, 1, 1, 1], [0.01] * 5, [0.008] * 5))
        self.assertIn("work was left running", kh.judge_pending([0] * 5, [0.35] * 5, [0.008] * 5))

    def test_wall_clock_against_events(self):
        self.assertIsNone(kh.judge_wall(0.36, 0.35, 0.02))    # honest, device-bound
        self.assertIsNone(kh.judge_wall(0.004, 0.03, 0.025))  # honest, launch-bound
        self.assertIn("not on the timed stream", kh.judge_wall(0.006, 0.36, 0.02))  # side stream

    def test_side_stream_output_is_caught_behind_the_gate(self):
        """obfuscated_side_stream passed the pending-work probe and the wall clock on the H200 (its
        side work had finished within the launch time). Behind the gate nothing on a pooled stream
        runs until the device-wide synchronize, so the output copied on the call's stream differs
        from the final one: deterministic, however fast the side work is."""
        dev, gate = GatedDevice(), FakeGate()
        dev.gate = gate
        prob = Problem(dev)
        fresh = lambda: prob.make_inputs(8)  # noqa: E731
        snapshot = lambda out: list(out.values)  # noqa: E731
        same = lambda snap, out: snap == out.values  # noqa: E731
        poisoned = []

        def honest(x):
            return prob.honest(x)

        def side_stream(x):
            y = FakeTensor([float("nan")])
            dev.side.append(lambda: setattr(y, "values", [sum(x.values)]))  # on a pooled stream
            return y

        def waits_on_its_side_stream(x):  # the call's stream waits for the side stream: timed
            y = side_stream(x)
            gate.opened = True
            dev.run_side()
            return y

        for fn, finding in ((honest, False), (side_stream, True), (waits_on_its_side_stream, False)):
            res = kh.probe_gated(dev, gate, fn, fresh, snapshot, same, lambda: poisoned.append(1), 0.01)
            self.assertEqual(res["gate_ms"], kh.kernel_timing.GATE_MIN_MS)
            self.assertEqual(len(res["runs"]), 2)
            verdict = kh.judge_gated(res["runs"])
            self.assertEqual(verdict is not None, finding, (fn.__name__, res))
        self.assertIn("side stream", kh.judge_gated([{"gate_closed": True, "changed_after_timer": True}]))
        # an open gate proves nothing: the changed output could be timed work
        self.assertIsNone(kh.judge_gated([{"gate_closed": False, "changed_after_timer": True}] * 2))
        self.assertEqual(len(poisoned), 6)  # every call's outputs land in poisoned memory
        self.assertEqual(kh.kernel_timing.gate_ms(1.5), 30.0)
        self.assertEqual(kh.kernel_timing.gate_ms(1e6), kh.kernel_timing.GATE_MAX_MS)

    def test_inspect_takes_the_shape_from_make_inputs_defaults(self):
        with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as f:
            f.write("def make_inputs(rows=1024, cols=4096, dtype=None):\n    pass\n"
                    "def kernel(x):\n    pass\ndef reference(x):\n    pass\n"
                    "def flops(rows, cols):\n    return 5 * rows * cols\n"
                    "def bytes_moved(rows, cols):\n    return 4 * rows * cols\n")
        try:
            out = kh.inspect_file(f.name, {"cols": 100})
            self.assertTrue(out["ok"], out)
            self.assertEqual(out["make_inputs_defaults"], {"rows": 1024, "cols": 4096})
            self.assertEqual(out["flops"], 5 * 1024 * 100)
        finally:
            os.unlink(f.name)

    def test_suite_compiles_references_after_the_timer_check(self):
        # torch.compile imports torch._dynamo, which rebinds torch.manual_seed: compiled before the
        # last timer-identity check, every kernel of an H100 suite run was refused as
        # timer_tampered (bench/results/kernel_suite/README.md). The references come after it.
        import ast
        src = open(os.path.join(ROOT, "tools", "kernel_harness.py"), encoding="utf-8").read()
        bench = next(n for n in ast.parse(src).body if isinstance(n, ast.FunctionDef) and n.name == "bench")
        calls = [(n.lineno, ast.unparse(n.func)) for n in ast.walk(bench) if isinstance(n, ast.Call)]
        last_check = max(line for line, f in calls if f == "tampered")
        compiles = [line for line, f in calls if f == "torch.compile"]
        self.assertTrue(compiles)
        self.assertGreater(min(compiles), last_check)

    def test_git_blob_id_matches_git(self):
        with tempfile.NamedTemporaryFile("wb", suffix=".py", delete=False) as f:
            f.write(b"def kernel(x):\n    return x\n")
        try:
            want = subprocess.run(["git", "hash-object", f.name], capture_output=True, text=True).stdout.strip()
            self.assertEqual(kh.git_blob_id(f.name), want)
        finally:
            os.unlink(f.name)


if __name__ == "__main__":
    unittest.main()
