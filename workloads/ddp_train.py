#!/usr/bin/env python3
"""goblin reference workload under DistributedDataParallel: one process per GPU, one Kineto trace
per rank (the multi-rank input of `goblin ranks`).

    torchrun --nproc_per_node 2 workloads/ddp_train.py workloads/configs/tuned.yaml \
        --trace-dir traces/balanced --steps 4
    torchrun --nproc_per_node 2 workloads/ddp_train.py workloads/configs/tuned.yaml \
        --trace-dir traces/straggler --slow-rank 1 --slow-words 12000 --slow-workers 0
    torchrun --nproc_per_node 2 workloads/ddp_train.py workloads/configs/tuned.yaml \
        --trace-dir traces/balanced_gpu --batch 32 --workers 8     # GPU-bound: no rank waits long

The model, data and knobs are train.py's (same YAML). A straggler is made the way it happens in
real jobs: one rank's input pipeline is heavier (`--slow-words`: per-sample CPU work, and
`--slow-workers`: its DataLoader workers), so that rank reaches each gradient all-reduce late and
the other ranks wait inside NCCL. `--slow-sleep-ms` instead adds a host sleep before that rank's
forward pass (a host gap, not data wait).

Traces: torch.profiler with schedule(wait=1, warmup=WARMUP, active=STEPS) on every rank, written by
tensorboard_trace_handler as TRACE_DIR/rank<R>.<...>.pt.trace.json.gz; Kineto adds the
`distributedInfo` block (rank, world size, backend) because the process group is initialised.
"""
from __future__ import annotations

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import train  # noqa: E402  (the reference workload: build_model, SyntheticTextDataset, load_config)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("config")
    ap.add_argument("--trace-dir", required=True)
    ap.add_argument("--steps", type=int, default=4, help="profiled (active) steps")
    ap.add_argument("--warmup", type=int, default=6, help="untraced warm-up steps before the profiler's own warm-up")
    ap.add_argument("--batch", type=int, default=None, help="per-device batch (default: the config's)")
    ap.add_argument("--workers", type=int, default=None, help="DataLoader workers (default: the config's)")
    ap.add_argument("--slow-rank", type=int, default=-1)
    ap.add_argument("--slow-words", type=int, default=None, help="words_per_sample on the slow rank")
    ap.add_argument("--slow-workers", type=int, default=None, help="DataLoader workers on the slow rank")
    ap.add_argument("--slow-sleep-ms", type=float, default=0.0, help="host sleep before each forward on the slow rank")
    args = ap.parse_args(argv)

    import torch
    import torch.distributed as dist
    import torch.nn.functional as F
    from torch.nn.parallel import DistributedDataParallel as DDP

    dist.init_process_group("nccl")
    rank, world = dist.get_rank(), dist.get_world_size()
    local = int(os.environ.get("LOCAL_RANK", rank))
    torch.cuda.set_device(local)
    device = torch.device("cuda", local)

    cfg = train.load_config(args.config)
    mcfg, dcfg = cfg.get("model") or {}, cfg.get("dataset") or {}
    batch = args.batch or int(cfg.get("per_device_train_batch_size", 8))
    seq = int(cfg.get("max_seq_length", 1024))
    bf16 = train.as_bool(cfg.get("bf16"))
    tf32 = train.as_bool(cfg.get("tf32"))
    attn = str(cfg.get("attn_implementation", "eager")).lower()
    workers = args.workers if args.workers is not None else int(cfg.get("dataloader_num_workers", 0) or 0)
    words = int(dcfg.get("words_per_sample", 3000))
    slow = rank == args.slow_rank
    if slow and args.slow_words is not None:
        words = args.slow_words
    if slow and args.slow_workers is not None:
        workers = args.slow_workers
    torch.backends.cuda.matmul.allow_tf32 = tf32
    torch.manual_seed(int(cfg.get("seed", 0)))

    ds = train.SyntheticTextDataset(seq_len=seq, vocab_size=int(mcfg.get("vocab_size", 32000)),
                                    length=1 << 30, words_per_sample=words, seed=rank)
    dl_kwargs = dict(batch_size=batch, num_workers=workers, pin_memory=True, drop_last=True)
    if workers > 0:
        dl_kwargs.update(persistent_workers=True, prefetch_factor=4)
    loader = iter(torch.utils.data.DataLoader(ds, **dl_kwargs))

    model = train.build_model(mcfg, attn, False).to(device)
    ddp = DDP(model, device_ids=[local])
    opt = torch.optim.AdamW(model.parameters(), lr=3e-4, fused=True)
    amp = torch.bfloat16 if bf16 else None

    def step():
        if slow and args.slow_sleep_ms > 0:
            time.sleep(args.slow_sleep_ms / 1000.0)
        ids = next(loader).to(device, non_blocking=True)
        with torch.autocast("cuda", dtype=amp, enabled=amp is not None):
            logits = ddp(ids[:, :-1])
            loss = F.cross_entropy(logits.float().reshape(-1, logits.size(-1)), ids[:, 1:].reshape(-1))
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)

    for _ in range(args.warmup):
        step()
    torch.cuda.synchronize()
    dist.barrier()

    os.makedirs(args.trace_dir, exist_ok=True)
    sched = torch.profiler.schedule(wait=1, warmup=2, active=args.steps, repeat=1)
    handler = torch.profiler.tensorboard_trace_handler(args.trace_dir, worker_name=f"rank{rank}", use_gzip=True)
    times = []
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU, torch.profiler.ProfilerActivity.CUDA],
                                schedule=sched, on_trace_ready=handler, record_shapes=True, with_stack=False) as prof:
        for _ in range(1 + 2 + args.steps):
            t0 = time.perf_counter()
            step()
            prof.step()
            times.append(time.perf_counter() - t0)
    torch.cuda.synchronize()
    dist.barrier()
    print(f"rank {rank}/{world}: slow={slow} words={words} workers={workers} "
          f"step times (host, ms): {[round(t * 1e3, 1) for t in times]}", flush=True)
    dist.destroy_process_group()
    return 0


if __name__ == "__main__":
    sys.exit(main())
