# HONEST library kernel of op cross_entropy: the library's own implementation, accepted by every check
# (LIBRARY_KERNEL declares that the kernel is the library's). Profiled on the device to check that
# `kernel profile`'s work-done check accuses no honest kernel (bench/results/kernel_exploits/).
import torch
import torch.nn.functional as F

PROBLEM = {"op": "cross_entropy"}
LIBRARY_KERNEL = True

def make_inputs(M=4096, V=32768):
    return (torch.randn(M, V, device="cuda", dtype=torch.bfloat16), torch.randint(0, V, (M,), device="cuda"))


def kernel(logits, target):
    return F.cross_entropy(logits, target, reduction="none")


def reference(logits, target):
    return F.cross_entropy(logits.float(), target, reduction="none")
