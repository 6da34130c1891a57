"""TEST DOUBLE (see torch/__init__.py): no GPU."""


def is_available():
    return False


def synchronize():
    pass


def get_device_name(i=0):
    raise RuntimeError("no CUDA device (test double)")


class nvtx:
    """TEST DOUBLE of torch.cuda.nvtx: the hook's step ranges (nothing records them here)."""

    @staticmethod
    def range_push(msg):
        return 0

    @staticmethod
    def range_pop():
        return 0
