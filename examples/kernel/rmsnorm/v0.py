# RMSNorm over the last dimension of a bf16 [M, N] tensor with a bf16 weight [N], v0: deliberately
# naive. One program per row, one warp, the row walked in 128-element chunks twice (sum of squares,
# then scale and write): the row is read from memory twice and few loads are in flight.
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
def rmsnorm_v0(x_ptr, w_ptr, y_ptr, N, stride, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    base = row * stride
    acc = 0.0
    for off in range(0, N, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + base + cols, mask=cols < N, other=0.0).to(tl.float32)
        acc += tl.sum(x * x, axis=0)
    rstd = 1.0 / tl.sqrt(acc / N + eps)
    for off in range(0, N, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        mask = cols < N
        x = tl.load(x_ptr + base + cols, mask=mask, other=0.0).to(tl.float32)
        w = tl.load(w_ptr + cols, mask=mask, other=0.0).to(tl.float32)
        tl.store(y_ptr + base + cols, (x * rstd * w).to(tl.bfloat16), mask=mask)


def kernel(x, w):
    M, N = x.shape
    y = torch.empty_like(x)
    rmsnorm_v0[(M,)](x, w, y, N, x.stride(0), EPS, BLOCK=128, num_warps=1)
    return y


def reference(x, w):
    xf = x.float()
    return xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + EPS) * w.float()


def baseline(x, w):
    return torch.nn.functional.rms_norm(x, (x.shape[-1],), w, EPS)
