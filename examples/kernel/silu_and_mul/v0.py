# SiLU-and-mul (the SwiGLU activation of Llama-style MLPs): x is [M, 2N] = [gate | up] in bf16, the
# output [M, N] = silu(gate) * up. v0: deliberately naive. One program per row, one warp, the row
# walked in 128-element chunks: a single pass, but each warp keeps only a few loads in flight.
import torch
import triton
import triton.language as tl

PROBLEM = {"op": "silu_and_mul"}
BASELINE_NAME = "F.silu(gate) * up (bf16 eager)"


def make_inputs(M=4096, N=14336):
    return (torch.randn(M, 2 * N, device="cuda", dtype=torch.bfloat16),)


@triton.jit
def silu_and_mul_v0(x_ptr, y_ptr, N, sx, sy, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    for off in range(0, N, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        mask = cols < N
        g = tl.load(x_ptr + row * sx + cols, mask=mask, other=0.0).to(tl.float32)
        u = tl.load(x_ptr + row * sx + N + cols, mask=mask, other=0.0).to(tl.float32)
        y = g / (1.0 + tl.exp(-g)) * u
        tl.store(y_ptr + row * sy + cols, y.to(tl.bfloat16), mask=mask)


def kernel(x):
    M, N2 = x.shape
    N = N2 // 2
    y = torch.empty(M, N, device=x.device, dtype=x.dtype)
    silu_and_mul_v0[(M,)](x, y, N, x.stride(0), y.stride(0), BLOCK=128, num_warps=1)
    return y


def reference(x):
    g, u = x.float().chunk(2, dim=-1)
    return torch.nn.functional.silu(g) * u


def baseline(x):
    N = x.shape[-1] // 2
    return torch.nn.functional.silu(x[:, :N]) * x[:, N:]
