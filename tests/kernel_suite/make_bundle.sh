#!/bin/bash
# Packs what run_h100.sh needs into DEST (default /work/main/.dev/kernel-suite, ignored by git):
# the device machine gets the session's checkout, not this worktree, so goblin, its libraries, the
# harness, the kernel files and the MCP client travel as one carried folder, laid out as in the
# repository (examples/kernel, tests/kernel_suite) so the MCP loop's plan names the same paths.
set -e
WT=$(cd "$(dirname "$0")/../.." && pwd)
DEST=${1:-/work/main/.dev/kernel-suite}
rm -rf "$DEST" && mkdir -p "$DEST"/{lib,tools,examples,tests}
cp "$WT/build/goblin" "$DEST/"
# Every library but the C runtime's own (the device image's glibc is newer than this machine's).
for l in $(ldd "$WT/build/goblin" | awk '/=> \//{print $3}' | grep -vE '/lib(c|m|resolv|dl|pthread|rt)\.so|ld-linux'); do
  cp -L "$l" "$DEST/lib/"
done
cp "$WT/tools/kernel_harness.py" "$WT/tools/kernel_timing.py" "$DEST/tools/"
cp -r "$WT/examples/kernel" "$DEST/examples/kernel"
mkdir -p "$DEST/tests/kernel_suite"
cp -r "$WT/tests/kernel_suite/mcp_rmsnorm" "$WT/tests/kernel_suite/mcp_loop.py" "$WT/tests/kernel_suite/prewarm.py" \
  "$WT/tests/kernel_suite/run_h100.sh" "$DEST/tests/kernel_suite/"
find "$DEST" -name __pycache__ -prune -exec rm -rf {} +
du -sh "$DEST"
