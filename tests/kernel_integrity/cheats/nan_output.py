# Not a speed cheat: an output with a NaN in it must fail, whatever its other elements.
import _softmax as _s  # the honest kernel (../cheats/_softmax.py, copied beside kernel.py)
from _softmax import softmax


def make_inputs(M=32768, N=8192):
    return _s.make_inputs(M, N)


def reference(x):
    return _s.reference(x)

PROBLEM = {"op": "softmax"}


def kernel(x):
    y = softmax(x)
    y[0, 0] = float("nan")
    return y
