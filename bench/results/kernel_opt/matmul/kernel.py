# bf16 matmul v3: v2's grouped ordering with Hopper TMA loads: device-side tensor descriptors
# (tl.make_tensor_descriptor) move whole A/B tiles global -> shared memory with the Tensor Memory
# Accelerator instead of per-thread address arithmetic, and the C tile leaves through a TMA store.
import torch
import triton
import triton.language as tl

PROBLEM = {"op": "matmul"}
BASELINE_NAME = "torch.matmul (cuBLAS)"


def _alloc(size, alignment, stream):  # scratch for device-side descriptors
    return torch.empty(size, device="cuda", dtype=torch.int8)


triton.set_allocator(_alloc)


def make_inputs(M=8192, N=8192, K=8192):
    a = torch.randn(M, K, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(K, N, device="cuda", dtype=torch.bfloat16)
    return a, b


@triton.autotune(
    configs=[
        triton.Config({"BM": 128, "BN": 256, "BK": 64, "GROUP_M": 8}, num_warps=8, num_stages=3),
        triton.Config({"BM": 128, "BN": 256, "BK": 64, "GROUP_M": 8}, num_warps=8, num_stages=4),
        triton.Config({"BM": 256, "BN": 128, "BK": 64, "GROUP_M": 8}, num_warps=8, num_stages=4),
        triton.Config({"BM": 128, "BN": 128, "BK": 64, "GROUP_M": 8}, num_warps=4, num_stages=5),
    ],
    key=["M", "N", "K"],
)
@triton.jit
def mm_v3(a_ptr, b_ptr, c_ptr, M, N, K,
          BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, GROUP_M: tl.constexpr):
    a_desc = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[K, 1], block_shape=[BM, BK])
    b_desc = tl.make_tensor_descriptor(b_ptr, shape=[K, N], strides=[N, 1], block_shape=[BK, BN])
    c_desc = tl.make_tensor_descriptor(c_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    pid = tl.program_id(0)
    npm = tl.cdiv(M, BM)
    npn = tl.cdiv(N, BN)
    group = GROUP_M * npn
    first_m = (pid // group) * GROUP_M
    gsz = min(npm - first_m, GROUP_M)
    pm = first_m + ((pid % group) % gsz)
    pn = (pid % group) // gsz
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        a = a_desc.load([pm * BM, k * BK])
        b = b_desc.load([k * BK, pn * BN])
        acc = tl.dot(a, b, acc)
    c_desc.store([pm * BM, pn * BN], acc.to(tl.bfloat16))


def kernel(a, b):
    M, K = a.shape
    _, N = b.shape
    c = torch.empty(M, N, device=a.device, dtype=torch.bfloat16)
    grid = lambda meta: (triton.cdiv(M, meta["BM"]) * triton.cdiv(N, meta["BN"]),)
    mm_v3[grid](a, b, c, M, N, K)
    return c


def reference(a, b):
    return a.float() @ b.float()


def baseline(a, b):
    return torch.matmul(a, b)
