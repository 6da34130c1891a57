# LayerNorm over the last dimension of a bf16 [M, N] tensor (bf16 weight and bias [N]), v0:
# deliberately naive. One program per row, one warp, the row walked in 128-element chunks three
# times (mean, variance, normalise and write): three reads of x and few loads in flight.
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
def layernorm_v0(x_ptr, w_ptr, b_ptr, y_ptr, N, stride, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    base = row * stride
    s = 0.0
    for off in range(0, N, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + base + cols, mask=cols < N, other=0.0).to(tl.float32)
        s += tl.sum(x, axis=0)
    mean = s / N
    v = 0.0
    for off in range(0, N, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + base + cols, mask=cols < N, other=0.0).to(tl.float32)
        d = tl.where(cols < N, x - mean, 0.0)
        v += tl.sum(d * d, axis=0)
    rstd = 1.0 / tl.sqrt(v / N + eps)
    for off in range(0, N, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        mask = cols < N
        x = tl.load(x_ptr + base + cols, mask=mask, other=0.0).to(tl.float32)
        w = tl.load(w_ptr + cols, mask=mask, other=0.0).to(tl.float32)
        b = tl.load(b_ptr + cols, mask=mask, other=0.0).to(tl.float32)
        tl.store(y_ptr + base + cols, ((x - mean) * rstd * w + b).to(tl.bfloat16), mask=mask)


def kernel(x, w, b):
    M, N = x.shape
    y = torch.empty_like(x)
    layernorm_v0[(M,)](x, w, b, y, N, x.stride(0), EPS, BLOCK=128, num_warps=1)
    return y


def reference(x, w, b):
    return torch.nn.functional.layer_norm(x.float(), (x.shape[-1],), w.float(), b.float(), EPS)


def baseline(x, w, b):
    return torch.nn.functional.layer_norm(x, (x.shape[-1],), w, b, EPS)
