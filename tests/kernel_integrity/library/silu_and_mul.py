# HONEST library kernel of op silu_and_mul: the library's own implementation, accepted by every check
# (LIBRARY_KERNEL declares that the kernel is the library's). Profiled on the device to check that
# `kernel profile`'s work-done check accuses no honest kernel (bench/results/kernel_exploits/).
import torch
import torch.nn.functional as F

PROBLEM = {"op": "silu_and_mul"}
LIBRARY_KERNEL = True

def make_inputs(M=4096, N=8192):
    return (torch.randn(M, 2 * N, device="cuda", dtype=torch.bfloat16),)


def kernel(x):
    g, u = x.chunk(2, dim=-1)
    return F.silu(g) * u


def reference(x):
    g, u = x.float().chunk(2, dim=-1)
    return F.silu(g) * u
