# Row softmax v1: single pass with the whole row in registers (BLOCK = next power of two >= N):
# one read and one write per element instead of three reads; 8 warps per row.
import torch
import triton
import triton.language as tl

PROBLEM = {"op": "softmax"}


def make_inputs(M=32768, N=8192):
    return (torch.randn(M, N, device="cuda", dtype=torch.bfloat16),)


@triton.jit
def softmax_v1(x_ptr, y_ptr, N, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * stride + cols, mask=cols < N, other=-float("inf")).to(tl.float32)
    e = tl.exp(x - tl.max(x, axis=0))
    tl.store(y_ptr + row * stride + cols, (e / tl.sum(e, axis=0)).to(tl.bfloat16), mask=cols < N)


def kernel(x):
    M, N = x.shape
    y = torch.empty_like(x)
    softmax_v1[(M,)](x, y, N, x.stride(0), BLOCK=triton.next_power_of_2(N), num_warps=8)
    return y


def reference(x):
    return torch.softmax(x.float(), dim=-1)
