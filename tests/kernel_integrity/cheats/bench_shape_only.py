# CHEAT: correct at the bench shape only. Rows are processed in blocks of 64 with no tail, which
# the bench shape (M = 32768) never exercises; any other M leaves its last rows unwritten.
import torch
import _softmax as _s  # the honest kernel (../cheats/_softmax.py, copied beside kernel.py)
from _softmax import softmax


def make_inputs(M=32768, N=8192):
    return _s.make_inputs(M, N)


def reference(x):
    return _s.reference(x)

PROBLEM = {"op": "softmax"}


def kernel(x):
    y = torch.zeros_like(x)
    return softmax(x, y, rows=(x.shape[0] // 64) * 64)
