"""small_train.py run whole under torch.profiler (CPU ops with shapes + CUDA kernels): the eager
pair of examples/h100_tracer/small_train_cupti.json.gz, which goblin's tracer recorded without
operators. `goblin roofline small_train_cupti.json.gz --capture small_train_torch.json.gz` prices
the tracer trace's kernels like their identical launches here (signature tier).
Usage: python3 record_torch_small_train.py OUT.json [STEPS]"""
import os
import runpy
import sys

import torch
from torch.profiler import ProfilerActivity, profile

out = sys.argv[1]
steps = sys.argv[2] if len(sys.argv) > 2 else "8"
script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "small_train.py")
sys.argv = [script, steps]
with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA], record_shapes=True) as prof:
    runpy.run_path(script, run_name="__main__")
prof.export_chrome_trace(out)
print("wrote", out, torch.__version__, torch.cuda.get_device_name(0))
