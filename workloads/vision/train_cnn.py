#!/usr/bin/env python3
"""Image classification the way a plain PyTorch tutorial writes it: a ResNet-18-shaped network,
a DataLoader over an image dataset (synthetic here: random 3 x H x W images, 1000 classes, so no
download), SGD, optional autocast, and the loss printed every --log-interval steps.

Its flags are timm's train.py spellings (--batch-size, --img-size, --channels-last, --amp,
--log-interval), with the slow defaults a first script has: NCHW, cuDNN's autotuner off, fp32,
the loss read on the host every step.
"""
import argparse
import time

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset

p = argparse.ArgumentParser()
p.add_argument("--batch-size", type=int, default=64)
p.add_argument("--img-size", type=int, default=224)
p.add_argument("--num-workers", type=int, default=2)
p.add_argument("--channels-last", action="store_true", help="NHWC memory format for model and inputs")
p.add_argument("--cudnn-benchmark", action="store_true", help="let cuDNN pick the fastest convolutions")
p.add_argument("--amp", action="store_true", help="bf16 autocast")
p.add_argument("--log-interval", type=int, default=1)
p.add_argument("--steps", type=int, default=100)
args = p.parse_args()

torch.backends.cudnn.benchmark = args.cudnn_benchmark


class Images(Dataset):
    def __init__(self, n, size):
        self.n, self.size = n, size

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        return torch.randn(3, self.size, self.size), i % 1000


class Block(nn.Module):
    def __init__(self, cin, cout, stride):
        super().__init__()
        self.c1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.b1 = nn.BatchNorm2d(cout)
        self.c2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.b2 = nn.BatchNorm2d(cout)
        self.down = None
        if stride != 1 or cin != cout:
            self.down = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))

    def forward(self, x):
        y = torch.relu(self.b1(self.c1(x)))
        y = self.b2(self.c2(y))
        return torch.relu(y + (x if self.down is None else self.down(x)))


class ResNet18(nn.Module):
    def __init__(self, classes=1000):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 64, 7, 2, 3, bias=False), nn.BatchNorm2d(64), nn.ReLU(),
                                  nn.MaxPool2d(3, 2, 1))
        layers, cin = [], 64
        for cout, stride in [(64, 1), (64, 1), (128, 2), (128, 1), (256, 2), (256, 1), (512, 2), (512, 1)]:
            layers.append(Block(cin, cout, stride))
            cin = cout
        self.layers = nn.Sequential(*layers)
        self.fc = nn.Linear(512, classes)

    def forward(self, x):
        x = self.layers(self.stem(x))
        return self.fc(torch.flatten(nn.functional.adaptive_avg_pool2d(x, 1), 1))


device = "cuda"
model = ResNet18().to(device)
if args.channels_last:
    model = model.to(memory_format=torch.channels_last)
opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
loader = DataLoader(Images(args.batch_size * args.steps, args.img_size), batch_size=args.batch_size, shuffle=True,
                    num_workers=args.num_workers, drop_last=True)

model.train()
t0 = time.time()
for step, (x, y) in enumerate(loader):
    x, y = x.to(device, non_blocking=True), y.to(device, non_blocking=True)
    if args.channels_last:
        x = x.contiguous(memory_format=torch.channels_last)
    with torch.autocast("cuda", dtype=torch.bfloat16, enabled=args.amp):
        loss = nn.functional.cross_entropy(model(x), y)
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()
    if step % args.log_interval == 0:
        print(f"step {step} loss {loss.item():.4f} {time.time() - t0:.1f}s")
