# Causal attention forward, softmax(Q K^T / sqrt(D), causal mask) V, on bf16 [B, H, S, D], v0:
# deliberately naive. One program per query row; it walks the keys up to its own position in
# blocks of 64 with an online softmax, the dot products on the FP32 SIMT units (no tensor cores,
# no reuse of K and V across query rows).
import math

import torch
import triton
import triton.language as tl

PROBLEM = {"op": "causal_attention"}
BASELINE_NAME = "F.scaled_dot_product_attention(is_causal=True)"


def make_inputs(B=2, H=16, S=2048, D=64):
    q = torch.randn(B, H, S, D, device="cuda", dtype=torch.bfloat16)
    k = torch.randn(B, H, S, D, device="cuda", dtype=torch.bfloat16)
    v = torch.randn(B, H, S, D, device="cuda", dtype=torch.bfloat16)
    return q, k, v


@triton.jit
def attention_v0(q_ptr, k_ptr, v_ptr, o_ptr, S, D, scale, BLOCK_N: tl.constexpr, BLOCK_D: tl.constexpr):
    pid = tl.program_id(0)
    bh = pid // S
    row = pid % S
    base = bh * S * D
    d = tl.arange(0, BLOCK_D)
    dm = d < D
    q = tl.load(q_ptr + base + row * D + d, mask=dm, other=0.0).to(tl.float32) * scale
    m = -float("inf")
    l = 0.0
    acc = tl.zeros([BLOCK_D], dtype=tl.float32)
    for start in range(0, row + 1, BLOCK_N):
        n = start + tl.arange(0, BLOCK_N)
        nm = n <= row
        off = base + n[:, None] * D + d[None, :]
        kvm = nm[:, None] & dm[None, :]
        k = tl.load(k_ptr + off, mask=kvm, other=0.0).to(tl.float32)
        s = tl.where(nm, tl.sum(k * q[None, :], axis=1), -float("inf"))
        m_new = tl.maximum(m, tl.max(s, axis=0))
        alpha = tl.exp(m - m_new)
        p = tl.exp(s - m_new)
        l = l * alpha + tl.sum(p, axis=0)
        v = tl.load(v_ptr + off, mask=kvm, other=0.0).to(tl.float32)
        acc = acc * alpha + tl.sum(p[:, None] * v, axis=0)
        m = m_new
    tl.store(o_ptr + base + row * D + d, (acc / l).to(tl.bfloat16), mask=dm)


def kernel(q, k, v):
    B, H, S, D = q.shape
    q, k, v = q.contiguous(), k.contiguous(), v.contiguous()
    o = torch.empty_like(q)
    attention_v0[(B * H * S,)](q, k, v, o, S, D, 1.0 / math.sqrt(D), BLOCK_N=64,
                               BLOCK_D=max(16, triton.next_power_of_2(D)), num_warps=4)
    return o


def reference(q, k, v):
    S, D = q.shape[-2], q.shape[-1]
    s = (q.float() @ k.float().transpose(-1, -2)) / math.sqrt(D)
    s = s.masked_fill(torch.ones(S, S, dtype=torch.bool, device=q.device).triu(1), float("-inf"))
    return torch.softmax(s, dim=-1) @ v.float()


def baseline(q, k, v):
    return torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)
