"""TEST DOUBLE (see torch/__init__.py): the global optimizer-step post hooks of
torch/optim/optimizer.py (register_optimizer_step_post_hook, called after every Optimizer.step)."""
_global_optimizer_post_hooks = {}


def register_optimizer_step_post_hook(hook):
    _global_optimizer_post_hooks[len(_global_optimizer_post_hooks)] = hook
    return hook


class Optimizer:
    def __init__(self, params=(), defaults=None):
        self.param_groups = [{"params": list(params)}]

    def step(self, *args, **kwargs):
        out = self._step(*args, **kwargs) if hasattr(self, "_step") else None
        for hook in list(_global_optimizer_post_hooks.values()):
            hook(self, args, kwargs)
        return out
