# bf16 matmul C = A @ B at 8192^3, v0: deliberately naive Triton. Small 32x32x32 tiles, one stage
# (no software pipelining), row-major program order: little data reuse per byte loaded.
import torch
import triton
import triton.language as tl

PROBLEM = {"op": "matmul"}
BASELINE_NAME = "torch.matmul (cuBLAS)"


def make_inputs(M=8192, N=8192, K=8192):
    a = torch.randn(M, K, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(K, N, device="cuda", dtype=torch.bfloat16)
    return a, b


@triton.jit
def mm_v0(a_ptr, b_ptr, c_ptr, M, N, K, sam, sak, sbk, sbn, scm, scn,
          BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pid = tl.program_id(0)
    npn = tl.cdiv(N, BN)
    pm = pid // npn
    pn = pid % npn
    rm = pm * BM + tl.arange(0, BM)
    rn = pn * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        # Masked loads: rows/columns past M, N and the K tail read as 0 (a 0 adds nothing to the
        # dot), so shapes that are not multiples of the tile stay correct.
        a = tl.load(a_ptr + rm[:, None] * sam + (k + rk)[None, :] * sak,
                    mask=(rm[:, None] < M) & ((k + rk)[None, :] < K), other=0.0)
        b = tl.load(b_ptr + (k + rk)[:, None] * sbk + rn[None, :] * sbn,
                    mask=((k + rk)[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc += tl.dot(a, b)
    tl.store(c_ptr + rm[:, None] * scm + rn[None, :] * scn, acc.to(tl.bfloat16),
             mask=(rm[:, None] < M) & (rn[None, :] < N))


def kernel(a, b):
    M, K = a.shape
    _, N = b.shape
    c = torch.empty(M, N, device=a.device, dtype=torch.bfloat16)
    grid = (triton.cdiv(M, 32) * triton.cdiv(N, 32),)
    mm_v0[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0), c.stride(1),
                BM=32, BN=32, BK=32, num_warps=4, num_stages=1)
    return c


def reference(a, b):
    return a.float() @ b.float()


def baseline(a, b):
    return torch.matmul(a, b)
