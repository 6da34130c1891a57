"""Does CUDA work, then dies with an uncaught exception (exit code 1)."""
import torch
a = torch.randn(1024, 1024, device="cuda")
for _ in range(5):
    a = a @ a
    a = a / a.norm()
torch.cuda.synchronize()
raise RuntimeError("deliberate crash after CUDA work")
