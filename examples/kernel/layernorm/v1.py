# LayerNorm v1: single pass with the whole row in registers (BLOCK = next power of two >= N): mean
# and variance from the registers, one read of x and one write of y per element; 8 warps per row.
import torch
import triton
import triton.language as tl

PROBLEM = {"op": "layernorm"}
BASELINE_NAME = "torch.nn.functional.layer_norm (bf16)"
EPS = 1e-5


def make_inputs(M=16384, N=8192):
    x = torch.randn(M, N, device="cuda", dtype=torch.bfloat16)
    w = 1 + 0.1 * torch.randn(N, device="cuda", dtype=torch.bfloat16)
    b = 0.1 * torch.randn(N, device="cuda", dtype=torch.bfloat16)
    return x, w, b


@triton.jit
def layernorm_v1(x_ptr, w_ptr, b_ptr, y_ptr, N, stride, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < N
    x = tl.load(x_ptr + row * stride + cols, mask=mask, other=0.0).to(tl.float32)
    mean = tl.sum(x, axis=0) / N
    d = tl.where(mask, x - mean, 0.0)
    rstd = 1.0 / tl.sqrt(tl.sum(d * d, axis=0) / N + eps)
    w = tl.load(w_ptr + cols, mask=mask, other=0.0).to(tl.float32)
    b = tl.load(b_ptr + cols, mask=mask, other=0.0).to(tl.float32)
    tl.store(y_ptr + row * stride + cols, (d * rstd * w + b).to(tl.bfloat16), mask=mask)


def kernel(x, w, b):
    M, N = x.shape
    y = torch.empty_like(x)
    layernorm_v1[(M,)](x, w, b, y, N, x.stride(0), EPS, BLOCK=triton.next_power_of_2(N), num_warps=8)
    return y


def reference(x, w, b):
    return torch.nn.functional.layer_norm(x.float(), (x.shape[-1],), w.float(), b.float(), EPS)


def baseline(x, w, b):
    return torch.nn.functional.layer_norm(x, (x.shape[-1],), w, b, EPS)
