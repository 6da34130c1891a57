# Cross-entropy of bf16 logits [M, V] against int64 targets [M], one fp32 loss per row
# (reduction="none"), v0: deliberately naive. One program per row, one warp, the row walked in
# 128-element chunks twice (max, then the sum of exp): two reads of the logits, few loads in flight.
import torch
import triton
import triton.language as tl

PROBLEM = {"op": "cross_entropy"}
BASELINE_NAME = "torch.nn.functional.cross_entropy (bf16)"


def make_inputs(M=4096, V=32768):
    logits = torch.randn(M, V, device="cuda", dtype=torch.bfloat16)
    target = torch.randint(0, V, (M,), device="cuda")
    return logits, target


@triton.jit
def cross_entropy_v0(x_ptr, t_ptr, loss_ptr, V, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    base = row * stride
    m = -float("inf")
    for off in range(0, V, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + base + cols, mask=cols < V, other=-float("inf")).to(tl.float32)
        m = tl.maximum(m, tl.max(x, axis=0))
    s = 0.0
    for off in range(0, V, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + base + cols, mask=cols < V, other=-float("inf")).to(tl.float32)
        s += tl.sum(tl.exp(x - m), axis=0)
    t = tl.load(t_ptr + row)
    xt = tl.load(x_ptr + base + t).to(tl.float32)
    tl.store(loss_ptr + row, tl.log(s) + m - xt)


def kernel(logits, target):
    M, V = logits.shape
    loss = torch.empty(M, device=logits.device, dtype=torch.float32)
    cross_entropy_v0[(M,)](logits, target, loss, V, logits.stride(0), BLOCK=128, num_warps=1)
    return loss


def reference(logits, target):
    return torch.nn.functional.cross_entropy(logits.float(), target, reduction="none")


def baseline(logits, target):
    return torch.nn.functional.cross_entropy(logits, target, reduction="none")
