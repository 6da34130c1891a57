#!/usr/bin/env bash
# Stop 41 (2026-11-26, fourth session): libgoblin_cupti.so after its split into
# activity_copy.cpp / cupti_clocks.cpp (record copying and clocks moved out of goblin_cupti.cpp,
# no behaviour change intended) and the merged goblin, checked on the H100 with the existing
# device parts: `check` (versions, the library's dependencies), `robust` (crash, abort, no CUDA,
# DataLoader fork, SIGTERM, a small training script under `goblin trace`) and `tracesteps`
# (`goblin trace` on scripts that know nothing of goblin: steps and operators found).
# Run from the repository root with the packed build (scripts/device_pack) as .dev/s41/carry.tar.xz.
set -u
export DEV=.dev/s41
mkdir -p "$DEV" && cp -r workloads/goblin_hook workloads/tracer_checks "$DEV/"
[ -f "$DEV/carry.tar.xz" ] && tar -xJf "$DEV/carry.tar.xz" -C "$DEV"  # packed to fit the 64 MiB carry
export TORCH_EXTENSIONS_DIR=/tmp/goblin_ext PYTHONUNBUFFERED=1
BUDGET=420 bash tracer/device/device.sh check robust tracesteps
