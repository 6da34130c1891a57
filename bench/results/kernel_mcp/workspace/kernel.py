# RMSNorm v1: single pass with the whole row in registers (BLOCK = next power of two >= N): one read
# of x and one write of y per element instead of two reads; 8 warps per row.
import torch
import triton
import triton.language as tl

PROBLEM = {"op": "rmsnorm"}
BASELINE_NAME = "torch.nn.functional.rms_norm (bf16)"
EPS = 1e-6


def make_inputs(M=16384, N=8192):
    x = torch.randn(M, N, device="cuda", dtype=torch.bfloat16)
    w = 1 + 0.1 * torch.randn(N, device="cuda", dtype=torch.bfloat16)
    return x, w


@triton.jit
def rmsnorm_v1(x_ptr, w_ptr, y_ptr, N, stride, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < N
    x = tl.load(x_ptr + row * stride + cols, mask=mask, other=0.0).to(tl.float32)
    rstd = 1.0 / tl.sqrt(tl.sum(x * x, axis=0) / N + eps)
    w = tl.load(w_ptr + cols, mask=mask, other=0.0).to(tl.float32)
    tl.store(y_ptr + row * stride + cols, (x * rstd * w).to(tl.bfloat16), mask=mask)


def kernel(x, w):
    M, N = x.shape
    y = torch.empty_like(x)
    rmsnorm_v1[(M,)](x, w, y, N, x.stride(0), EPS, BLOCK=triton.next_power_of_2(N), num_warps=8)
    return y


def reference(x, w):
    xf = x.float()
    return xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + EPS) * w.float()


def baseline(x, w):
    return torch.nn.functional.rms_norm(x, (x.shape[-1],), w, EPS)
