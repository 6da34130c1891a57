# Row softmax on a bf16 [M, N] tensor, v0: deliberately naive. One program per row, walking the row
# in 128-element chunks three times (max, sum of exp, write), one warp: the row is read from memory
# three times and each program keeps only a few loads in flight.
import torch
import triton
import triton.language as tl

PROBLEM = {"op": "softmax"}


def make_inputs(M=32768, N=8192):
    return (torch.randn(M, N, device="cuda", dtype=torch.bfloat16),)


@triton.jit
def softmax_v0(x_ptr, y_ptr, N, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    base = row * stride
    m = -float("inf")
    for off in range(0, N, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + base + cols, mask=cols < N, other=-float("inf")).to(tl.float32)
        m = tl.maximum(m, tl.max(x, axis=0))
    s = 0.0
    for off in range(0, N, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + base + cols, mask=cols < N, other=-float("inf")).to(tl.float32)
        s += tl.sum(tl.exp(x - m), axis=0)
    for off in range(0, N, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + base + cols, mask=cols < N, other=-float("inf")).to(tl.float32)
        tl.store(y_ptr + base + cols, (tl.exp(x - m) / s).to(tl.bfloat16), mask=cols < N)


def kernel(x):
    M, N = x.shape
    y = torch.empty_like(x)
    softmax_v0[(M,)](x, y, N, x.stride(0), BLOCK=128, num_warps=1)
    return y


def reference(x):
    return torch.softmax(x.float(), dim=-1)
