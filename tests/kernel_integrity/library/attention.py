# HONEST library kernel of op attention: the library's own implementation, accepted by every check
# (LIBRARY_KERNEL declares that the kernel is the library's). Profiled on the device to check that
# `kernel profile`'s work-done check accuses no honest kernel (bench/results/kernel_exploits/).
import torch
import torch.nn.functional as F

PROBLEM = {"op": "attention"}
LIBRARY_KERNEL = True

def make_inputs(B=4, H=16, S=2048, D=128):
    return tuple(torch.randn(B, H, S, D, device="cuda", dtype=torch.bfloat16) for _ in range(3))


def kernel(q, k, v):
    return F.scaled_dot_product_attention(q, k, v)


def reference(q, k, v):
    return F.scaled_dot_product_attention(q.float(), k.float(), v.float())
