"""Forks 2 DataLoader workers (fork start method) while the parent uses CUDA."""
import torch
from torch.utils.data import DataLoader, Dataset


class DS(Dataset):
    def __len__(self):
        return 64

    def __getitem__(self, i):
        return torch.randn(128)


if __name__ == "__main__":
    torch.multiprocessing.set_start_method("fork", force=True)
    w = torch.randn(128, 128, device="cuda")
    dl = DataLoader(DS(), batch_size=8, num_workers=2)
    tot = 0.0
    for epoch in range(2):
        for b in dl:
            tot += float((b.cuda() @ w).sum())
    torch.cuda.synchronize()
    print("done", tot)
