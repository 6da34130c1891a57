# CHEAT: compute in place and return the input itself (a view of the input): no output buffer,
# and with a reference computed after the kernel the reference sees the kernel's result.
import _softmax as _s  # the honest kernel (../cheats/_softmax.py, copied beside kernel.py)
from _softmax import softmax


def make_inputs(M=32768, N=8192):
    return _s.make_inputs(M, N)


def reference(x):
    return _s.reference(x)

PROBLEM = {"op": "softmax"}


def kernel(x):
    return softmax(x, x)
