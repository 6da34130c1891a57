# CHEAT (issue #29: 204,600 GB/s, "7530.1 % of target" under kernel_harness 1): memoise the
# output by the input's pointer and shape. Under harness 1 every timed call got the same tensor.
import _softmax as _s  # the honest kernel (../cheats/_softmax.py, copied beside kernel.py)
from _softmax import softmax


def make_inputs(M=32768, N=8192):
    return _s.make_inputs(M, N)


def reference(x):
    return _s.reference(x)

PROBLEM = {"op": "softmax"}
_cache = {}


def kernel(x):
    key = (x.data_ptr(), tuple(x.shape))
    if key not in _cache:
        _cache[key] = softmax(x)
    return _cache[key]
