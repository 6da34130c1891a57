#!/usr/bin/env python3
"""A second reference workload: a plain Hugging Face `Trainer` fine-tuning script, configured from
one YAML file, the way a user writes one. It contains NO goblin code and writes NO result: goblin
audits it with `--script` (its profiler hook times the optimizer steps and writes the result).

    python3 workloads/hf_trainer/train_hf.py workloads/hf_trainer/configs/hf_base.yaml
    goblin audit workloads/hf_trainer/configs/hf_base.yaml --script workloads/hf_trainer/train_hf.py

YAML: every top-level key that `transformers.TrainingArguments` accepts goes to it unchanged (bf16,
fp16, tf32, optim, dataloader_num_workers, dataloader_pin_memory, torch_compile, ...); `model:`
builds a Qwen2-style causal LM from a config (no weights are downloaded), `attn_implementation`
picks eager / sdpa attention, `max_seq_length` and `dataset:` shape the synthetic data (token ids
from a pure-Python tokeniser-like pass per sample, so DataLoader workers matter).
"""
import dataclasses
import random
import sys

import torch
import yaml
from transformers import AutoModelForCausalLM, Qwen2Config, Trainer, TrainingArguments

_SYL = ["ka", "lo", "mi", "ne", "su", "ta", "ri", "po", "ve", "da", "go", "bl", "in", "th", "er", "an", "re", "on"]


class SyntheticText(torch.utils.data.Dataset):
    """Deterministic pseudo-text per index, split into ids by a slow greedy pass (CPU work per
    sample), packed to seq_len; labels = input_ids (the model shifts them)."""

    def __init__(self, seq_len, vocab_size, length, words_per_sample, seed=0):
        self.seq_len, self.vocab_size, self.length = seq_len, vocab_size, length
        self.words, self.seed = words_per_sample, seed
        pieces = _SYL + [a + b for a in _SYL for b in _SYL]
        self.vocab = {p: 3 + (sum(map(ord, p)) * 2654435761 % (vocab_size - 3)) for p in pieces}

    def __len__(self):
        return self.length

    def __getitem__(self, idx):
        rng = random.Random(self.seed * 1_000_003 + idx)
        ids = [1]
        for _ in range(self.words):
            w = "".join(rng.choice(_SYL) for _ in range(rng.randint(1, 4)))
            i = 0
            while i < len(w):
                for n in (4, 2):
                    t = self.vocab.get(w[i : i + n])
                    if t is not None:
                        ids.append(t)
                        i += n
                        break
                else:
                    ids.append(2)
                    i += 1
        while len(ids) < self.seq_len:
            ids = ids + ids[1:]
        x = torch.tensor(ids[: self.seq_len], dtype=torch.long)
        return {"input_ids": x, "labels": x.clone()}


def main(path):
    with open(path) as f:
        cfg = yaml.safe_load(f) or {}
    mcfg = dict(cfg.pop("model", {}) or {})
    dcfg = dict(cfg.pop("dataset", {}) or {})
    seq_len = int(cfg.pop("max_seq_length", 1024))
    attn = cfg.pop("attn_implementation", "eager")
    cfg.pop("model_name", None)
    known = {f.name for f in dataclasses.fields(TrainingArguments)}
    unknown = sorted(k for k in cfg if k not in known)
    if unknown:
        print(f"train_hf.py: ignoring keys TrainingArguments does not take: {unknown}", file=sys.stderr)
    args = TrainingArguments(**{k: v for k, v in cfg.items() if k in known})
    model_config = Qwen2Config(**mcfg)
    model = AutoModelForCausalLM.from_config(model_config, attn_implementation=attn)
    steps = args.max_steps if args.max_steps > 0 else 100
    n = steps * args.per_device_train_batch_size * args.gradient_accumulation_steps + 64
    data = SyntheticText(seq_len, model_config.vocab_size, n, int(dcfg.get("words_per_sample", 3000)))
    trainer = Trainer(model=model, args=args, train_dataset=data)
    trainer.train()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "workloads/hf_trainer/configs/hf_base.yaml"))
