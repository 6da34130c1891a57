"""TEST DOUBLE (see torch/__init__.py): no GPU."""


def is_available():
    return False


def synchronize():
    pass


def get_device_name(i=0):
    raise RuntimeError("no CUDA device (test double)")
