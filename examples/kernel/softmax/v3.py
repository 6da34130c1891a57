# Row softmax v3: persistent kernel. A grid of (SM count x programs-per-SM) programs, each looping
# over rows with a software-pipelined loop (tl.range num_stages) so the next row's load is in
# flight while this row is reduced and written; no tail wave of short-lived programs.
import torch
import triton
import triton.language as tl

PROBLEM = {"op": "softmax"}
_SMS = None


def make_inputs(M=32768, N=8192):
    return (torch.randn(M, N, device="cuda", dtype=torch.bfloat16),)


@triton.jit
def softmax_v3(x_ptr, y_ptr, M, N, stride, BLOCK: tl.constexpr, STAGES: tl.constexpr):
    start = tl.program_id(0)
    step = tl.num_programs(0)
    cols = tl.arange(0, BLOCK)
    for row in tl.range(start, M, step, num_stages=STAGES):
        x = tl.load(x_ptr + row * stride + cols, mask=cols < N, other=-float("inf"),
                    eviction_policy="evict_first").to(tl.float32)
        e = tl.exp2((x - tl.max(x, axis=0)) * 1.4426950408889634)
        inv = 1.0 / tl.sum(e, axis=0)
        tl.store(y_ptr + row * stride + cols, (e * inv).to(tl.bfloat16), mask=cols < N,
                 eviction_policy="evict_first")


def kernel(x):
    global _SMS
    if _SMS is None:
        _SMS = torch.cuda.get_device_properties(0).multi_processor_count
    M, N = x.shape
    y = torch.empty_like(x)
    grid = (min(M, _SMS * 4),)
    softmax_v3[grid](x, y, M, N, x.stride(0), BLOCK=triton.next_power_of_2(N), STAGES=2, num_warps=8)
    return y


def reference(x):
    return torch.softmax(x.float(), dim=-1)
