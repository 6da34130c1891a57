"""A small training loop (MLP + AdamW, one eager and one CUDA-graph phase) for the tracer's
recorded fixture: few kernels per step, NVTX steps from goblin's hook, a memcpy per step."""
import sys
import torch

steps = int(sys.argv[1]) if len(sys.argv) > 1 else 8
torch.manual_seed(0)
dev = "cuda"
model = torch.nn.Sequential(torch.nn.Linear(256, 512), torch.nn.GELU(), torch.nn.Linear(512, 256)).to(dev)
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
x_host = torch.randn(64, 256).pin_memory()
for i in range(steps):
    x = x_host.to(dev, non_blocking=True)
    loss = model(x).square().mean()
    loss.backward()
    opt.step()
    opt.zero_grad(set_to_none=True)
torch.cuda.synchronize()
# A captured CUDA graph replayed a few times: its kernels carry a graph id.
static_x = torch.randn(64, 256, device=dev)
s = torch.cuda.Stream()
s.wait_stream(torch.cuda.current_stream())
with torch.cuda.stream(s):
    for _ in range(2):
        model(static_x).sum()
torch.cuda.current_stream().wait_stream(s)
g = torch.cuda.CUDAGraph()
with torch.cuda.graph(g):
    out = model(static_x).relu().sum()
for _ in range(3):
    g.replay()
torch.cuda.synchronize()
print("loss", float(loss), "graph out", float(out))
