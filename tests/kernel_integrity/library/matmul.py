# HONEST library kernel of op matmul: the library's own implementation, accepted by every check
# (LIBRARY_KERNEL declares that the kernel is the library's). Profiled on the device to check that
# `kernel profile`'s work-done check accuses no honest kernel (bench/results/kernel_exploits/).
import torch

PROBLEM = {"op": "matmul"}
LIBRARY_KERNEL = True

def make_inputs(M=4096, N=4096, K=4096):
    return (torch.randn(M, K, device="cuda", dtype=torch.bfloat16), torch.randn(K, N, device="cuda", dtype=torch.bfloat16))


def kernel(a, b):
    return torch.matmul(a, b)


def reference(a, b):
    return torch.matmul(a.float(), b.float())
