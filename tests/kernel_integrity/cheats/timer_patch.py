# CHEAT: replace the timer when the file is imported: every CUDA-event interval reads 1 us.
import torch
import _softmax as _s  # the honest kernel (../cheats/_softmax.py, copied beside kernel.py)
from _softmax import softmax


def make_inputs(M=32768, N=8192):
    return _s.make_inputs(M, N)


def reference(x):
    return _s.reference(x)

PROBLEM = {"op": "softmax"}
torch.cuda.Event.elapsed_time = lambda self, end: 0.001


def kernel(x):
    return softmax(x)
