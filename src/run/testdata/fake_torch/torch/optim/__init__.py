"""TEST DOUBLE (see torch/__init__.py): torch.optim."""
from .optimizer import Optimizer  # noqa: F401
