# HONEST library kernel of op layernorm: the library's own implementation, accepted by every check
# (LIBRARY_KERNEL declares that the kernel is the library's). Profiled on the device to check that
# `kernel profile`'s work-done check accuses no honest kernel (bench/results/kernel_exploits/).
import torch
import torch.nn.functional as F

PROBLEM = {"op": "layernorm"}
LIBRARY_KERNEL = True

def make_inputs(M=4096, N=8192):
    return (torch.randn(M, N, device="cuda", dtype=torch.bfloat16), torch.randn(N, device="cuda", dtype=torch.bfloat16),
            torch.randn(N, device="cuda", dtype=torch.bfloat16))


def kernel(x, w, b):
    return F.layer_norm(x, (x.shape[-1],), w, b, 1e-5)


def reference(x, w, b):
    return F.layer_norm(x.float(), (x.shape[-1],), w.float(), b.float(), 1e-5)
