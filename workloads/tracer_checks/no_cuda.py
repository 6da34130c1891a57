"""Never touches CUDA (imports torch, computes on the CPU)."""
import torch
print(float(torch.randn(256, 256).sum()))
