"""Does CUDA work, then aborts (SIGABRT, no atexit handlers)."""
import os
import torch
a = torch.randn(1024, 1024, device="cuda")
for _ in range(5):
    a = a @ a
torch.cuda.synchronize()
os.abort()
