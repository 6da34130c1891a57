"""Records the fixtures of `goblin memory` (docs/memory.md): a small transformer trained for a few
steps at one batch size, with PyTorch's allocator history on from before the first CUDA allocation,
so that replaying the snapshot's trace gives the run's peak. Beside the snapshot it writes what the
allocator itself reported (torch.cuda.max_memory_allocated() and memory_stats()), the number the
tests check goblin's peak against.

    python3 workloads/memory_snapshot.py --batch 8 --out DIR [--kineto]

--kineto also records one profiled step (profile_memory=True) as a Kineto trace, reset peak before it.
"""

import argparse
import gzip
import json
import os
import pickle

import torch
import torch.nn as nn


def make_model(d, layers):
    layer = nn.TransformerEncoderLayer(d_model=d, nhead=8, dim_feedforward=4 * d, batch_first=True, dropout=0.0)
    return nn.Sequential(nn.TransformerEncoder(layer, num_layers=layers), nn.Linear(d, d))


def step(model, opt, batch, seq, d):
    x = torch.randn(batch, seq, d, device="cuda")
    y = model(x)
    loss = (y.float() ** 2).mean()
    loss.backward()
    opt.step()
    opt.zero_grad(set_to_none=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--batch", type=int, required=True)
    ap.add_argument("--seq", type=int, default=256)
    ap.add_argument("--d", type=int, default=512)
    ap.add_argument("--layers", type=int, default=4)
    ap.add_argument("--steps", type=int, default=3)
    ap.add_argument("--out", required=True)
    ap.add_argument("--kineto", action="store_true")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    torch.manual_seed(0)
    # History on before anything is allocated: the trace then holds every allocation of the run.
    torch.cuda.memory._record_memory_history(max_entries=1_000_000, stacks="python")
    torch.cuda.reset_peak_memory_stats()
    model = make_model(a.d, a.layers).cuda()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    for _ in range(a.steps):
        step(model, opt, a.batch, a.seq, a.d)
    torch.cuda.synchronize()
    name = f"snapshot_b{a.batch}"
    snap = torch.cuda.memory._snapshot()
    with open(os.path.join(a.out, name + ".pickle"), "wb") as f:
        pickle.dump(snap, f)  # what torch.cuda.memory._dump_snapshot writes
    stats = torch.cuda.memory_stats()
    rec = {
        "batch": a.batch, "seq": a.seq, "d_model": a.d, "layers": a.layers, "steps": a.steps,
        "max_memory_allocated": torch.cuda.max_memory_allocated(),
        "max_memory_reserved": torch.cuda.max_memory_reserved(),
        "memory_allocated_at_dump": torch.cuda.memory_allocated(),
        "memory_reserved_at_dump": torch.cuda.memory_reserved(),
        "parameter_bytes": sum(p.numel() * p.element_size() for p in model.parameters()),
        "torch": torch.__version__, "device": torch.cuda.get_device_name(),
        "memory_stats": {k: v for k, v in stats.items() if k.endswith(".all.peak") or k.endswith(".all.current")},
        "pickle_protocol": pickle.DEFAULT_PROTOCOL,
    }
    torch.cuda.memory._record_memory_history(enabled=None)
    if a.kineto:
        from torch.profiler import ProfilerActivity, profile
        torch.cuda.reset_peak_memory_stats()
        with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA], profile_memory=True) as p:
            step(model, opt, a.batch, a.seq, a.d)
            torch.cuda.synchronize()
        rec["kineto_step_max_memory_allocated"] = torch.cuda.max_memory_allocated()
        path = os.path.join(a.out, f"kineto_memory_b{a.batch}.json")
        p.export_chrome_trace(path)
        with open(path, "rb") as f, gzip.open(path + ".gz", "wb") as g:
            g.write(f.read())
        os.remove(path)
    with open(os.path.join(a.out, name + ".json"), "w") as f:
        json.dump(rec, f, indent=1, sort_keys=True)
    print(json.dumps({k: v for k, v in rec.items() if k != "memory_stats"}))


if __name__ == "__main__":
    main()
