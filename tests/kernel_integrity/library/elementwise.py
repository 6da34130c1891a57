# HONEST library kernel of op elementwise: the library's own implementation, accepted by every check
# (LIBRARY_KERNEL declares that the kernel is the library's). Profiled on the device to check that
# `kernel profile`'s work-done check accuses no honest kernel (bench/results/kernel_exploits/).
import torch

PROBLEM = {"op": "elementwise"}
LIBRARY_KERNEL = True

def make_inputs(N=1 << 26, I=2, O=1, F=1):
    return (torch.randn(N, device="cuda", dtype=torch.bfloat16), torch.randn(N, device="cuda", dtype=torch.bfloat16))


def kernel(x, y):
    return torch.add(x, y)


def reference(x, y):
    return x.float() + y.float()
