# Not a cheat of the timer but of the arithmetic: the honest single-pass softmax with a bytes
# formula four times too large (it counts reads and writes twice, in fp32). The GB/s it claims is
# above the H100's DRAM bandwidth, so the bench refuses it and names the formula as a cause.
import _softmax as _s  # the honest kernel (../cheats/_softmax.py, copied beside kernel.py)
from _softmax import softmax


def make_inputs(M=32768, N=8192):
    return _s.make_inputs(M, N)


def reference(x):
    return _s.reference(x)


def flops(M, N):
    return 5 * M * N


def bytes_moved(M, N):
    return 4 * 2 * M * N * 2


def kernel(x):
    return softmax(x)
