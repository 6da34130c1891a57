#!/usr/bin/env python3
"""Stand-in for transformers' examples/pytorch/language-modeling/run_clm.py on the simulated ROCm
host (tests/sim_rocm): the flags a user puts on its command line (TrainingArguments names, here
declared with argparse so goblin reads their defaults from the add_argument calls), no torch.

It writes the flags as the stand-in workload's config and runs tests/sim_rocm/workload.py's cost
model: result.json ($GOBLIN_RESULT), and under `goblin profile` the AMD Kineto trace. Steps and
warm-up come from $GOBLIN_STEPS / $GOBLIN_WARMUP, as goblin's hook would time them.
"""
import argparse
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import workload  # noqa: E402

p = argparse.ArgumentParser()
p.add_argument("--model_name_or_path", default="sim-llama")
p.add_argument("--per_device_train_batch_size", type=int, default=8)
p.add_argument("--gradient_accumulation_steps", type=int, default=1)
p.add_argument("--block_size", type=int, default=1024)
p.add_argument("--bf16", action="store_true")
p.add_argument("--fp16", action="store_true")
p.add_argument("--dataloader_num_workers", type=int, default=0)
p.add_argument("--optim", default="adamw_torch")
p.add_argument("--attn_implementation", default="eager")
p.add_argument("--output_dir", default="out")
a = p.parse_args()

cfg = tempfile.NamedTemporaryFile("w", suffix=".yaml", delete=False)
cfg.write("per_device_train_batch_size: %d\nmax_seq_length: %d\nbf16: %s\nfp16: %s\ndataloader_num_workers: %d\n"
          "optim: %s\nattn_implementation: %s\n" % (a.per_device_train_batch_size, a.block_size, str(a.bf16).lower(),
                                                     str(a.fp16).lower(), a.dataloader_num_workers, a.optim,
                                                     a.attn_implementation))
cfg.close()
sys.argv = ["workload.py", cfg.name, "--steps", os.environ.get("GOBLIN_STEPS", "3"),
            "--warmup", os.environ.get("GOBLIN_WARMUP", "1")]
try:
    workload.main()
finally:
    os.unlink(cfg.name)
