#!/usr/bin/env python3
"""Stand-in for an image-classification training script (timm's train.py shape: --img-size,
--batch-size) on the simulated host: no torch, no tokens. Each step sleeps a cost that grows with
batch x image pixels (x 0.5 under --amp) and the result contract holds step_time_seconds only
(tokens_per_sec 0): goblin counts the throughput in images from the command line's image size.
Steps and warm-up from $GOBLIN_STEPS / $GOBLIN_WARMUP; the result goes to $GOBLIN_RESULT.
"""
import argparse
import json
import os
import time

p = argparse.ArgumentParser()
p.add_argument("--img-size", type=int, default=224)
p.add_argument("--batch-size", type=int, default=32)
p.add_argument("--amp", action="store_true")
p.add_argument("--workers", type=int, default=4)
a = p.parse_args()

step = 2e-3 * a.batch_size * (a.img_size / 224.0) ** 2 * (0.5 if a.amp else 1.0)  # seconds a step
steps, warmup = int(os.environ.get("GOBLIN_STEPS", "3")), int(os.environ.get("GOBLIN_WARMUP", "1"))
times = []
for i in range(warmup + steps):
    t = time.perf_counter()
    time.sleep(step)
    if i >= warmup:
        times.append(time.perf_counter() - t)
if os.environ.get("GOBLIN_STANDIN_EXACT") == "1":
    times = [step] * steps
with open(os.environ["GOBLIN_RESULT"], "w") as f:
    json.dump({"step_time_seconds": sum(times) / len(times), "step_times": times, "tokens_per_sec": 0}, f)
