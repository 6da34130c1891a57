"""A stand-in for a user's unmodified training script (tests of `--script`): it imports torch,
builds an optimizer and calls step() in a loop, and writes no result of its own. Each step sleeps
12 ms (3 ms when the config file says `bf16: true`), so the timings are checkable. It runs 500
steps (6 s) unless goblin's hook ends it after its measured window.

Usage: python3 standin_script.py CONFIG
"""
import sys
import time

import torch

cfg = open(sys.argv[1]).read() if len(sys.argv) > 1 else ""
pause = 0.003 if "bf16: true" in cfg else 0.012
opt = torch.optim.Optimizer([])
for _ in range(500):
    time.sleep(pause)
    opt.step()
print("standin_script: ran all 500 steps (the hook did not end it)")
