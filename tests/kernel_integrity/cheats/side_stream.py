# CHEAT (issue #29: 103,563 GB/s, "target met" under kernel_harness 1): queue the work on a side
# stream and return at once; the events on the current stream time nothing.
import torch
import _softmax as _s  # the honest kernel (../cheats/_softmax.py, copied beside kernel.py)
from _softmax import softmax


def make_inputs(M=32768, N=8192):
    return _s.make_inputs(M, N)


def reference(x):
    return _s.reference(x)

PROBLEM = {"op": "softmax"}
_side = torch.cuda.Stream()


def kernel(x):
    y = torch.empty_like(x)
    with torch.cuda.stream(_side):
        softmax(x, y)
    return y
