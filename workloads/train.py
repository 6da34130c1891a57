#!/usr/bin/env python3
"""goblin reference workload: a Llama-style causal-LM fine-tuning step loop.

Driven by an HF TrainingArguments-style YAML (the file `goblin parse-config` reads). Every knob
below is really wired; nothing is downloaded (the model is built from the `model:` block and the
data is synthetic, with real per-sample CPU work so DataLoader workers matter).

    python3 workloads/train.py workloads/configs/base.yaml --steps 30 --warmup 5 --result r.json

Timing: `--warmup` steps run first and are excluded (module load, cuDNN/cuBLAS heuristics,
torch.compile). The measured window is bracketed by torch.cuda.synchronize(); per-step times are
host timestamps at each optimizer step (no per-step sync, so CPU/GPU overlap is preserved).

Contract with goblin (docs/live.md):
  * result JSON (to --result or $GOBLIN_RESULT): tokens_per_sec, step_time_seconds, step_times,
    tokens_per_step, steps_measured, warmup_steps, peak_mem_gb, env {...}, knobs {...}
  * $GOBLIN_TOKENS_PER_STEP is set in-process so the profiler hook (workloads/goblin_hook) can
    write tokens_per_sec into the trace metadata.
  * exit codes: 0 ok, 3 no GPU, 4 out of memory (message contains 'CUDA out of memory'),
    2 bad config; anything else is a crash.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import platform
import random
import sys
import time

EXIT_NO_GPU = 3
EXIT_OOM = 4
EXIT_CONFIG = 2


def load_config(path: str) -> dict:
    try:
        import yaml
    except ImportError:  # pragma: no cover
        print("goblin workload: PyYAML is required to read the config", file=sys.stderr)
        sys.exit(EXIT_CONFIG)
    with open(path) as f:
        cfg = yaml.safe_load(f) or {}
    if not isinstance(cfg, dict):
        print(f"goblin workload: {path} is not a mapping", file=sys.stderr)
        sys.exit(EXIT_CONFIG)
    return cfg


def as_bool(v, default=False) -> bool:
    if v is None:
        return default
    if isinstance(v, bool):
        return v
    return str(v).strip().lower() in ("1", "true", "yes", "on")


# ---------------------------------------------------------------------------------------------
# Synthetic data with tokenisation-like CPU work per sample.
# ---------------------------------------------------------------------------------------------

_SYLLABLES = [
    "ka", "lo", "mi", "ne", "su", "ta", "ri", "po", "ve", "da", "go", "bl", "in", "th", "er",
    "an", "re", "on", "at", "en", "nd", "ti", "es", "or", "te", "of", "ed", "is", "it", "al",
]


class SyntheticTextDataset:
    """Each item: a pseudo-text of words, tokenised by greedy longest-match over a subword
    vocabulary in pure Python (like a slow tokenizer), then truncated/padded to seq_len + 1 ids.
    Deterministic per index. `words_per_sample` scales the CPU work."""

    def __init__(self, seq_len: int, vocab_size: int, length: int, words_per_sample: int, seed: int):
        self.seq_len = seq_len
        self.vocab_size = vocab_size
        self.length = length
        self.words_per_sample = words_per_sample
        self.seed = seed
        rng = random.Random(seed)
        vocab = {}
        # subword vocabulary: all syllables, pairs and some triples
        pieces = list(_SYLLABLES)
        pieces += [a + b for a in _SYLLABLES for b in _SYLLABLES]
        pieces += ["".join(rng.choice(_SYLLABLES) for _ in range(3)) for _ in range(4000)]
        for p in pieces:
            if p not in vocab:
                vocab[p] = 3 + (hash_str(p) % (vocab_size - 3))
        self.vocab = vocab
        self.max_piece = max(len(p) for p in vocab)

    def __len__(self):
        return self.length

    def _tokenize(self, text: str) -> list:
        ids = [1]  # BOS
        vocab = self.vocab
        mp = self.max_piece
        for word in text.split():
            i = 0
            n = len(word)
            while i < n:
                for L in range(min(mp, n - i), 0, -1):
                    tid = vocab.get(word[i : i + L])
                    if tid is not None:
                        ids.append(tid)
                        i += L
                        break
                else:
                    ids.append(2)  # UNK
                    i += 1
        return ids

    def __getitem__(self, idx: int):
        import torch

        rng = random.Random(self.seed * 1_000_003 + idx)
        words = [
            "".join(rng.choice(_SYLLABLES) for _ in range(rng.randint(1, 4)))
            for _ in range(self.words_per_sample)
        ]
        ids = self._tokenize(" ".join(words))
        need = self.seq_len + 1
        while len(ids) < need:  # pack: repeat the document (as packing several docs would)
            ids = ids + ids[1:]
        return torch.tensor(ids[:need], dtype=torch.long)


def hash_str(s: str) -> int:
    h = 1469598103934665603
    for c in s.encode():
        h = ((h ^ c) * 1099511628211) & 0xFFFFFFFFFFFFFFFF
    return h


# ---------------------------------------------------------------------------------------------
# Model: Llama/Qwen-style decoder (RMSNorm, RoPE, SwiGLU, optional GQA).
# ---------------------------------------------------------------------------------------------


def build_model(mcfg: dict, attn_impl: str, grad_ckpt: bool):
    import torch
    import torch.nn as nn
    import torch.nn.functional as F
    from torch.utils.checkpoint import checkpoint

    hidden = int(mcfg.get("hidden_size", 1024))
    layers = int(mcfg.get("num_hidden_layers", 8))
    heads = int(mcfg.get("num_attention_heads", 16))
    kv_heads = int(mcfg.get("num_key_value_heads", heads))
    inter = int(mcfg.get("intermediate_size", int(8 * hidden / 3 / 256 + 1) * 256))
    vocab = int(mcfg.get("vocab_size", 32000))
    theta = float(mcfg.get("rope_theta", 10000.0))
    eps = float(mcfg.get("rms_norm_eps", 1e-5))
    tie = as_bool(mcfg.get("tie_word_embeddings"), False)
    head_dim = hidden // heads
    assert heads % kv_heads == 0, "num_attention_heads must be a multiple of num_key_value_heads"

    class RMSNorm(nn.Module):
        def __init__(self, d):
            super().__init__()
            self.weight = nn.Parameter(torch.ones(d))

        def forward(self, x):
            dt = x.dtype
            x32 = x.float()
            x32 = x32 * torch.rsqrt(x32.pow(2).mean(-1, keepdim=True) + eps)
            return self.weight * x32.to(dt)

    def rotate_half(x):
        x1, x2 = x.chunk(2, dim=-1)
        return torch.cat((-x2, x1), dim=-1)

    class Attention(nn.Module):
        def __init__(self):
            super().__init__()
            self.q_proj = nn.Linear(hidden, heads * head_dim, bias=False)
            self.k_proj = nn.Linear(hidden, kv_heads * head_dim, bias=False)
            self.v_proj = nn.Linear(hidden, kv_heads * head_dim, bias=False)
            self.o_proj = nn.Linear(heads * head_dim, hidden, bias=False)

        def forward(self, x, cos, sin, mask):
            b, t, _ = x.shape
            q = self.q_proj(x).view(b, t, heads, head_dim).transpose(1, 2)
            k = self.k_proj(x).view(b, t, kv_heads, head_dim).transpose(1, 2)
            v = self.v_proj(x).view(b, t, kv_heads, head_dim).transpose(1, 2)
            q = q * cos + rotate_half(q) * sin
            k = k * cos + rotate_half(k) * sin
            if kv_heads != heads:
                rep = heads // kv_heads
                k = k.repeat_interleave(rep, dim=1)
                v = v.repeat_interleave(rep, dim=1)
            if attn_impl == "sdpa":
                o = F.scaled_dot_product_attention(q, k, v, is_causal=True)
            else:  # eager: what HF's eager path does (explicit mask, fp32 softmax)
                scores = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(head_dim)
                scores = scores + mask
                probs = torch.softmax(scores.float(), dim=-1).to(q.dtype)
                o = torch.matmul(probs, v)
            o = o.transpose(1, 2).reshape(b, t, heads * head_dim)
            return self.o_proj(o)

    class MLP(nn.Module):
        def __init__(self):
            super().__init__()
            self.gate_proj = nn.Linear(hidden, inter, bias=False)
            self.up_proj = nn.Linear(hidden, inter, bias=False)
            self.down_proj = nn.Linear(inter, hidden, bias=False)

        def forward(self, x):
            return self.down_proj(F.silu(self.gate_proj(x)) * self.up_proj(x))

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.input_layernorm = RMSNorm(hidden)
            self.self_attn = Attention()
            self.post_attention_layernorm = RMSNorm(hidden)
            self.mlp = MLP()

        def forward(self, x, cos, sin, mask):
            x = x + self.self_attn(self.input_layernorm(x), cos, sin, mask)
            return x + self.mlp(self.post_attention_layernorm(x))

    class CausalLM(nn.Module):
        def __init__(self):
            super().__init__()
            self.embed_tokens = nn.Embedding(vocab, hidden)
            self.layers = nn.ModuleList([Block() for _ in range(layers)])
            self.norm = RMSNorm(hidden)
            self.lm_head = nn.Linear(hidden, vocab, bias=False)
            if tie:
                self.lm_head.weight = self.embed_tokens.weight
            inv = 1.0 / (theta ** (torch.arange(0, head_dim, 2).float() / head_dim))
            self.register_buffer("inv_freq", inv, persistent=False)
            self.gradient_checkpointing = grad_ckpt
            for m in self.modules():
                if isinstance(m, (nn.Linear, nn.Embedding)):
                    nn.init.normal_(m.weight, std=0.02)

        def forward(self, input_ids):
            b, t = input_ids.shape
            x = self.embed_tokens(input_ids)
            pos = torch.arange(t, device=input_ids.device).float()
            freqs = torch.outer(pos, self.inv_freq)
            emb = torch.cat((freqs, freqs), dim=-1)
            cos = emb.cos()[None, None].to(x.dtype)
            sin = emb.sin()[None, None].to(x.dtype)
            mask = None
            if attn_impl != "sdpa":
                mask = torch.full((t, t), float("-inf"), device=input_ids.device).triu(1)[None, None]
            for layer in self.layers:
                if self.gradient_checkpointing and self.training:
                    x = checkpoint(layer, x, cos, sin, mask, use_reentrant=False)
                else:
                    x = layer(x, cos, sin, mask)
            return self.lm_head(self.norm(x))

    return CausalLM()


# ---------------------------------------------------------------------------------------------


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("config")
    ap.add_argument("--steps", type=int, default=None, help="measured steps (default: max_steps - warmup)")
    ap.add_argument("--warmup", type=int, default=None, help="untimed warm-up steps (default 5; 8 with torch_compile)")
    ap.add_argument("--result", default=os.environ.get("GOBLIN_RESULT"), help="result JSON path")
    ap.add_argument("--device", default="cuda")
    args = ap.parse_args(argv)

    cfg = load_config(args.config)
    mcfg = cfg.get("model") or {}
    dcfg = cfg.get("dataset") or {}
    batch = int(cfg.get("per_device_train_batch_size", 8))
    accum = int(cfg.get("gradient_accumulation_steps", 1))
    seq = int(cfg.get("max_seq_length", cfg.get("max_length", 1024)))
    bf16 = as_bool(cfg.get("bf16"))
    fp16 = as_bool(cfg.get("fp16"))
    tf32 = as_bool(cfg.get("tf32"))
    attn = str(cfg.get("attn_implementation", "eager")).lower()
    if attn not in ("eager", "sdpa"):
        print(f"goblin workload: attn_implementation {attn!r} not supported here (eager|sdpa)", file=sys.stderr)
        return EXIT_CONFIG
    if bf16 and fp16:
        print("goblin workload: bf16 and fp16 are both true", file=sys.stderr)
        return EXIT_CONFIG
    workers = int(cfg.get("dataloader_num_workers", 0) or 0)
    pin = as_bool(cfg.get("dataloader_pin_memory"), True)  # HF default: True
    persistent = as_bool(cfg.get("dataloader_persistent_workers"), False)
    prefetch = cfg.get("dataloader_prefetch_factor")
    grad_ckpt = as_bool(cfg.get("gradient_checkpointing"))
    compile_ = as_bool(cfg.get("torch_compile"))
    # HF TrainingArguments' torch_compile_mode: "reduce-overhead" captures CUDA graphs (the
    # graph-on run of the two-trace overlap workflow), "max-autotune", or None (default mode).
    compile_mode = cfg.get("torch_compile_mode") or None
    optim = str(cfg.get("optim", "adamw_torch")).lower()
    lr = float(cfg.get("learning_rate", 3e-4))
    lr_warmup = int(cfg.get("warmup_steps", 0) or 0)
    max_steps = int(cfg.get("max_steps", 40))
    seed = int(cfg.get("seed", 0))
    warmup = args.warmup if args.warmup is not None else (8 if compile_ else 5)
    steps = args.steps if args.steps is not None else max(1, max_steps - warmup)

    import torch
    import torch.nn.functional as F

    if args.device == "cuda" and not torch.cuda.is_available():
        print("goblin workload: no CUDA/ROCm device visible to PyTorch (torch.cuda.is_available() is False)", file=sys.stderr)
        return EXIT_NO_GPU
    device = torch.device(args.device)
    torch.manual_seed(seed)
    torch.set_float32_matmul_precision("high" if tf32 else "highest")
    if device.type == "cuda":
        torch.backends.cuda.matmul.allow_tf32 = tf32
        torch.backends.cudnn.allow_tf32 = tf32

    tokens_per_step = batch * accum * seq
    os.environ["GOBLIN_TOKENS_PER_STEP"] = str(tokens_per_step)

    ds = SyntheticTextDataset(
        seq_len=seq,
        vocab_size=int(mcfg.get("vocab_size", 32000)),
        length=1 << 30,
        words_per_sample=int(dcfg.get("words_per_sample", 3000)),
        seed=seed,
    )
    dl_kwargs = dict(batch_size=batch, shuffle=False, num_workers=workers, pin_memory=pin and device.type == "cuda", drop_last=True)
    if workers > 0:
        dl_kwargs["persistent_workers"] = persistent
        if prefetch is not None:
            dl_kwargs["prefetch_factor"] = int(prefetch)
    loader = torch.utils.data.DataLoader(ds, **dl_kwargs)

    model = build_model(mcfg, attn, grad_ckpt).to(device)
    model.train()
    n_params = sum(p.numel() for p in model.parameters())
    fwd = torch.compile(model, mode=compile_mode) if compile_ else model

    if optim in ("adamw_torch_fused",):
        opt = torch.optim.AdamW(model.parameters(), lr=lr, fused=True)
    elif optim in ("adamw_torch", "adamw_hf", "adamw"):
        opt = torch.optim.AdamW(model.parameters(), lr=lr)
    elif optim in ("adamw_torch_foreach",):
        opt = torch.optim.AdamW(model.parameters(), lr=lr, foreach=True)
    elif optim in ("sgd",):
        opt = torch.optim.SGD(model.parameters(), lr=lr)
    else:
        print(f"goblin workload: optim {optim!r} not supported here", file=sys.stderr)
        return EXIT_CONFIG
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: min(1.0, (s + 1) / max(1, lr_warmup)))
    amp_dtype = torch.bfloat16 if bf16 else (torch.float16 if fp16 else None)
    scaler = torch.amp.GradScaler("cuda", enabled=fp16)
    non_blocking = pin and device.type == "cuda"

    def batches():
        while True:
            for b in loader:
                yield b

    it = batches()
    marks = []
    losses = []
    t_window = None
    total = warmup + steps
    try:
        for step in range(total):
            if step == warmup:
                if device.type == "cuda":
                    torch.cuda.synchronize()
                t_window = time.perf_counter()
                marks.append(t_window)
            for _ in range(accum):
                if compile_mode == "reduce-overhead":
                    # CUDA-graph trees: a new iteration begins, earlier outputs may be overwritten.
                    torch.compiler.cudagraph_mark_step_begin()
                ids = next(it).to(device, non_blocking=non_blocking)
                inp, labels = ids[:, :-1], ids[:, 1:]
                with torch.autocast(device.type, dtype=amp_dtype, enabled=amp_dtype is not None):
                    logits = fwd(inp)
                    loss = F.cross_entropy(logits.float().reshape(-1, logits.size(-1)), labels.reshape(-1))
                    loss = loss / accum
                scaler.scale(loss).backward()
            scaler.step(opt)
            scaler.update()
            opt.zero_grad(set_to_none=True)
            sched.step()
            if step >= warmup:
                marks.append(time.perf_counter())
            if step % 10 == 0 or step == total - 1:
                losses.append(round(float(loss.detach()) * accum, 4))
        if device.type == "cuda":
            torch.cuda.synchronize()
    except torch.cuda.OutOfMemoryError as e:
        print(f"goblin workload: CUDA out of memory: {e}", file=sys.stderr)
        return EXIT_OOM
    t_end = time.perf_counter()
    marks[-1] = t_end  # the last mark after the final sync
    window = t_end - t_window
    step_times = [b - a for a, b in zip(marks, marks[1:])]
    step_time = window / steps
    result = {
        "schema": "goblin.workload_result/1",
        "tokens_per_sec": tokens_per_step / step_time,
        "step_time_seconds": step_time,
        "step_times": [round(s, 6) for s in step_times],
        "tokens_per_step": tokens_per_step,
        "steps_measured": steps,
        "warmup_steps": warmup,
        "window_seconds": window,
        "losses": losses,
        "params": n_params,
        "peak_mem_gb": (torch.cuda.max_memory_allocated() / 2**30) if device.type == "cuda" else None,
        "knobs": {
            "precision": "bf16" if bf16 else ("fp16" if fp16 else "fp32"),
            "tf32": tf32, "attn_implementation": attn, "dataloader_num_workers": workers,
            "dataloader_pin_memory": pin, "dataloader_persistent_workers": persistent,
            "dataloader_prefetch_factor": prefetch, "gradient_checkpointing": grad_ckpt,
            "torch_compile": compile_, "torch_compile_mode": compile_mode, "optim": optim, "batch": batch, "accum": accum, "seq": seq,
        },
        "env": {
            "torch": torch.__version__,
            "cuda": torch.version.cuda,
            "hip": getattr(torch.version, "hip", None),
            "gpu": torch.cuda.get_device_name(0) if device.type == "cuda" else "cpu",
            "python": platform.python_version(),
            "cpu_count": os.cpu_count(),
        },
    }
    print(json.dumps({k: result[k] for k in ("tokens_per_sec", "step_time_seconds", "steps_measured")}), flush=True)
    if args.result:
        with open(args.result, "w") as f:
            json.dump(result, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
