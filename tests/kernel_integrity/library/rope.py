# HONEST library kernel of op rope: the library's own implementation, accepted by every check
# (LIBRARY_KERNEL declares that the kernel is the library's). Profiled on the device to check that
# `kernel profile`'s work-done check accuses no honest kernel (bench/results/kernel_exploits/).
import torch

PROBLEM = {"op": "rope"}
LIBRARY_KERNEL = True

def make_inputs(T=8192, H=32, D=128):
    x = torch.randn(T, H, D, device="cuda", dtype=torch.bfloat16)
    ang = torch.randn(T, D // 2, device="cuda")
    return x, ang.cos().to(torch.bfloat16), ang.sin().to(torch.bfloat16)


def kernel(x, cos, sin):
    x1, x2 = x.chunk(2, dim=-1)
    c, s = cos[:, None, :], sin[:, None, :]
    return torch.cat((x1 * c - x2 * s, x2 * c + x1 * s), dim=-1)


def reference(x, cos, sin):
    x1, x2 = x.float().chunk(2, dim=-1)
    c, s = cos.float()[:, None, :], sin.float()[:, None, :]
    return torch.cat((x1 * c - x2 * s, x2 * c + x1 * s), dim=-1)
