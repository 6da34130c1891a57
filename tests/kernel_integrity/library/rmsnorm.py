# HONEST library kernel of op rmsnorm: the library's own implementation, accepted by every check
# (LIBRARY_KERNEL declares that the kernel is the library's). Profiled on the device to check that
# `kernel profile`'s work-done check accuses no honest kernel (bench/results/kernel_exploits/).
import torch
import torch.nn.functional as F

PROBLEM = {"op": "rmsnorm"}
LIBRARY_KERNEL = True

def make_inputs(M=4096, N=8192):
    return (torch.randn(M, N, device="cuda", dtype=torch.bfloat16), torch.randn(N, device="cuda", dtype=torch.bfloat16))


def kernel(x, w):
    return F.rms_norm(x, (x.shape[-1],), w, 1e-6)


def reference(x, w):
    xf = x.float()
    return xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + 1e-6) * w.float()
