"""TEST DOUBLE of PyTorch for goblin's hook tests on machines without torch (the CPU CI).

Only what workloads/goblin_hook/sitecustomize.py touches: torch.__version__, torch.version,
torch.cuda.is_available/synchronize/get_device_name, and the hook's entry point
torch.optim.optimizer.register_optimizer_step_post_hook with an Optimizer whose step() calls the
registered global post hooks as torch.optim.Optimizer does (torch/optim/optimizer.py:
_global_optimizer_post_hooks, called with (optimizer, args, kwargs) after every step). It computes
nothing. Never on a real workload's path: tests put this folder on PYTHONPATH themselves.
"""
from . import cuda, optim, version  # noqa: F401

__version__ = "0.0.0+goblin-test-double"
