# HONEST library kernel of op reduction: the library's own implementation, accepted by every check
# (LIBRARY_KERNEL declares that the kernel is the library's). Profiled on the device to check that
# `kernel profile`'s work-done check accuses no honest kernel (bench/results/kernel_exploits/).
import torch

PROBLEM = {"op": "reduction"}
LIBRARY_KERNEL = True

def make_inputs(M=4096, N=8192):
    return (torch.randn(M, N, device="cuda", dtype=torch.bfloat16),)


def kernel(x):
    return torch.sum(x, dim=-1)


def reference(x):
    return x.float().sum(-1)
