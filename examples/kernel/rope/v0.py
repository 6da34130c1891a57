# Rotary position embedding (rotate-half form) of bf16 x [T, H, D] with bf16 cos and sin tables
# [T, D/2], v0: deliberately naive. One program per (token, head), one warp, D/2 elements each:
# half a million tiny programs, each moving a few hundred bytes.
import torch
import triton
import triton.language as tl

PROBLEM = {"op": "rope"}
BASELINE_NAME = "rotate-half in bf16 eager"


def make_inputs(T=16384, H=32, D=128):
    x = torch.randn(T, H, D, device="cuda", dtype=torch.bfloat16)
    pos = torch.arange(T, device="cuda", dtype=torch.float32)
    inv_freq = 10000.0 ** (-torch.arange(0, D // 2, device="cuda", dtype=torch.float32) * 2.0 / D)
    ang = pos[:, None] * inv_freq[None, :]
    return x, torch.cos(ang).to(torch.bfloat16), torch.sin(ang).to(torch.bfloat16)


@triton.jit
def rope_v0(x_ptr, c_ptr, s_ptr, y_ptr, H, HALF, sxt, sxh, sct, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    t = pid // H
    h = pid % H
    i = tl.arange(0, BLOCK)
    mask = i < HALF
    base = t * sxt + h * sxh
    x1 = tl.load(x_ptr + base + i, mask=mask, other=0.0).to(tl.float32)
    x2 = tl.load(x_ptr + base + HALF + i, mask=mask, other=0.0).to(tl.float32)
    c = tl.load(c_ptr + t * sct + i, mask=mask, other=0.0).to(tl.float32)
    s = tl.load(s_ptr + t * sct + i, mask=mask, other=0.0).to(tl.float32)
    tl.store(y_ptr + base + i, (x1 * c - x2 * s).to(tl.bfloat16), mask=mask)
    tl.store(y_ptr + base + HALF + i, (x2 * c + x1 * s).to(tl.bfloat16), mask=mask)


def kernel(x, cos, sin):
    T, H, D = x.shape
    x = x.contiguous()
    y = torch.empty_like(x)
    rope_v0[(T * H,)](x, cos, sin, y, H, D // 2, x.stride(0), x.stride(1), cos.stride(0),
                      BLOCK=max(16, triton.next_power_of_2(D // 2)), num_warps=1)
    return y


def reference(x, cos, sin):
    half = x.shape[-1] // 2
    x1, x2 = x.float()[..., :half], x.float()[..., half:]
    c, s = cos.float()[:, None, :], sin.float()[:, None, :]
    return torch.cat([x1 * c - x2 * s, x2 * c + x1 * s], dim=-1)


def baseline(x, cos, sin):
    half = x.shape[-1] // 2
    x1, x2 = x[..., :half], x[..., half:]
    c, s = cos[:, None, :], sin[:, None, :]
    return torch.cat([x1 * c - x2 * s, x2 * c + x1 * s], dim=-1)
