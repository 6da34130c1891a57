#!/bin/bash
# Packs what run_h100.sh needs into DEST (default /work/main/.dev/kernel-suite, ignored by git):
# the device machine gets the session's checkout, not this worktree, so goblin, its libraries, the
# harness and the kernel files travel as one carried folder.
set -e
WT=$(cd "$(dirname "$0")/../.." && pwd)
DEST=${1:-/work/main/.dev/kernel-suite}
rm -rf "$DEST" && mkdir -p "$DEST"/{lib,tools}
cp "$WT/build/goblin" "$DEST/"
# Every library but the C runtime's own (the device image's glibc is newer than this machine's).
for l in $(ldd "$WT/build/goblin" | awk '/=> \//{print $3}' | grep -vE '/lib(c|m|resolv|dl|pthread|rt)\.so|ld-linux'); do
  cp -L "$l" "$DEST/lib/"
done
cp "$WT/tools/kernel_harness.py" "$DEST/tools/"
cp -r "$WT/examples/kernel" "$DEST/examples"
cp "$WT/tests/kernel_suite/run_h100.sh" "$DEST/"
du -sh "$DEST"
