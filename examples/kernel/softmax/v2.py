# Row softmax v2: v1 plus wider per-thread vectors and more warps in flight: 16 warps per row
# (16 bf16 = 32 B per thread per load with BLOCK 8192), exp2 with a folded log2(e) scale,
# reciprocal-multiply instead of a divide per element, and streaming eviction hints (each byte
# is touched once, so keep it out of L2's way).
import torch
import triton
import triton.language as tl

PROBLEM = {"op": "softmax"}


def make_inputs(M=32768, N=8192):
    return (torch.randn(M, N, device="cuda", dtype=torch.bfloat16),)


@triton.jit
def softmax_v2(x_ptr, y_ptr, N, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * stride + cols, mask=cols < N, other=-float("inf"),
                eviction_policy="evict_first").to(tl.float32)
    e = tl.exp2((x - tl.max(x, axis=0)) * 1.4426950408889634)
    inv = 1.0 / tl.sum(e, axis=0)
    tl.store(y_ptr + row * stride + cols, (e * inv).to(tl.bfloat16), mask=cols < N,
             eviction_policy="evict_first")


def kernel(x):
    M, N = x.shape
    y = torch.empty_like(x)
    softmax_v2[(M,)](x, y, N, x.stride(0), BLOCK=triton.next_power_of_2(N), num_warps=16)
    return y


def reference(x):
    return torch.softmax(x.float(), dim=-1)
