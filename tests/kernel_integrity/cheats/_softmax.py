# The honest single-pass softmax of examples/kernel/softmax/v1.py, shared by the cheats here so
# that each cheat file differs from an honest kernel only by its trick.
import torch
import triton
import triton.language as tl


@triton.jit
def softmax_rows(x_ptr, y_ptr, N, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * stride + cols, mask=cols < N, other=-float("inf")).to(tl.float32)
    e = tl.exp(x - tl.max(x, axis=0))
    tl.store(y_ptr + row * stride + cols, (e / tl.sum(e, axis=0)).to(tl.bfloat16), mask=cols < N)


def softmax(x, y=None, rows=None):
    M, N = x.shape
    y = torch.empty_like(x) if y is None else y
    softmax_rows[(M if rows is None else rows,)](x, y, N, x.stride(0), BLOCK=triton.next_power_of_2(N), num_warps=8)
    return y


def make_inputs(M=32768, N=8192):
    return (torch.randn(M, N, device="cuda", dtype=torch.bfloat16),)


def reference(x):
    return torch.softmax(x.float(), dim=-1)
