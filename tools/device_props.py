#!/usr/bin/env python3
"""What the CUDA/ROCm runtime says about each GPU of this machine (cudaGetDeviceProperties /
hipGetDeviceProperties through torch): one JSON object on stdout, read by `goblin specs --detect`
to compare the device's own values with the spec database (data/gpus.yaml). Exit 7 without torch
or a GPU (goblin then compares only what nvidia-smi / amd-smi / rocminfo report)."""
import json
import sys

FIELDS = ("name", "major", "minor", "total_memory", "multi_processor_count", "L2_cache_size", "warp_size",
          "max_threads_per_multi_processor", "regs_per_multiprocessor", "shared_memory_per_multiprocessor",
          "shared_memory_per_block_optin", "clock_rate", "memory_clock_rate", "memory_bus_width", "gcnArchName")


def main():
    try:
        import torch
    except ImportError:
        print(json.dumps({"error": "torch is not installed"}))
        return 7
    if not torch.cuda.is_available():
        print(json.dumps({"error": "torch sees no GPU"}))
        return 7
    devs = []
    for i in range(torch.cuda.device_count()):
        p = torch.cuda.get_device_properties(i)
        d = {"index": i}
        for f in FIELDS:
            v = getattr(p, f, None)
            if isinstance(v, (int, float, str)):
                d[f] = v
        devs.append(d)
    print(json.dumps({"tool": "torch.cuda.get_device_properties", "torch": torch.__version__,
                      "runtime": torch.version.hip or torch.version.cuda, "devices": devs}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
