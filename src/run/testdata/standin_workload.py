#!/usr/bin/env python3
"""Stand-in for workloads/train.py in CPU-only tests: same command line and result contract, no
torch. Behaviour from $GOBLIN_STANDIN: ok (default) | crash | hang | oom | nogpu | noresult |
profiler_missing. Speed from the config text: `bf16: true` makes a step 4x faster, so
`goblin bench A --against B` has something real to measure (it sleeps); `torch_compile: true`
adds 4 ms a step (a round that makes things slower, which the audit must revert).
GOBLIN_STANDIN_EXACT=1: report the nominal step times (below)."""
import json
import os
import sys
import time

mode = os.environ.get("GOBLIN_STANDIN", "ok")
args = sys.argv[1:]
config = args[0] if args and not args[0].startswith("--") else ""
steps = int(args[args.index("--steps") + 1]) if "--steps" in args else 3
warmup = int(args[args.index("--warmup") + 1]) if "--warmup" in args else 1
result = args[args.index("--result") + 1] if "--result" in args else os.environ.get("GOBLIN_RESULT")

if mode == "crash":
    print("Traceback (most recent call last):\n  File \"train.py\", line 1\nRuntimeError: boom", file=sys.stderr)
    sys.exit(1)
if mode == "oom":
    print("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 GiB", file=sys.stderr)
    sys.exit(1)
if mode == "nogpu":
    print("goblin workload: no CUDA/ROCm device visible to PyTorch (torch.cuda.is_available() is False)", file=sys.stderr)
    sys.exit(3)
if mode == "hang":
    # A child that would outlive us if goblin did not kill the whole process group.
    if os.fork() == 0:
        with open(os.environ["STANDIN_PIDFILE"], "w") as f:
            f.write(str(os.getpid()))
        time.sleep(3600)
        os._exit(0)
    time.sleep(3600)

text = open(config).read() if config else ""
step = 0.004 if "bf16: true" in text else 0.016
if "torch_compile: true" in text:  # a patch that makes it slower, for the audit's revert path
    step += 0.004
tps_per_step = 8 * 1024

# Mimic the profiler hook when goblin profile injected it (the stand-in has no torch).
out = os.environ.get("GOBLIN_PROFILE_OUT")
if os.environ.get("GOBLIN_PROFILE") == "1" and out:
    hook = {"state": "profiler_missing", "error": "ModuleNotFoundError('torch.profiler')"} if mode == "profiler_missing" else {
        "state": "done", "steps_seen": warmup + steps, "step_time_seconds": step, "tokens_per_sec": tps_per_step / step}
    json.dump(hook, open(os.path.join(out, "hook.json"), "w"))

# GOBLIN_STANDIN_EXACT=1 reports the nominal step time instead of the measured sleep: for tests
# whose verdict must not depend on how late a loaded machine wakes a sleeper (two equal configs
# then compare exactly equal, never "significantly" different by chance).
exact = os.environ.get("GOBLIN_STANDIN_EXACT") == "1"
times = []
for i in range(warmup + steps):
    t = time.perf_counter()
    time.sleep(step)
    if i >= warmup:
        times.append(step if exact else time.perf_counter() - t)
st = sum(times) / len(times)
if mode != "noresult" and result:
    json.dump({"tokens_per_sec": tps_per_step / st, "step_time_seconds": st, "step_times": times,
               "tokens_per_step": tps_per_step, "steps_measured": steps, "warmup_steps": warmup,
               "env": {"torch": "standin", "cuda": None, "gpu": "cpu"}}, open(result, "w"))
print(json.dumps({"step_time_seconds": st}))
