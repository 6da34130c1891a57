#!/bin/bash
# Packs what run_h100.sh needs into DEST (default /work/main/.dev/kernel-honest, ignored by git):
# the device machine gets the session's checkout, not this worktree, plus the carried bundle.
# The old harness is tools/kernel_harness.py of BASE (the commit before the honest-measurement work).
set -e
WT=$(cd "$(dirname "$0")/../.." && pwd)
DEST=${1:-/work/main/.dev/kernel-honest}
BASE=${BASE:-65d78f8}
rm -rf "$DEST" && mkdir -p "$DEST"/{lib,tools,cheats,examples}
cp "$WT/build/goblin" "$DEST/"
for l in $(ldd "$WT/build/goblin" | awk '/=> \//{print $3}' | grep -E 'simdjson|sqlite3|yaml-cpp|isal|fmt|libz\.'); do
  cp -L "$l" "$DEST/lib/"
done
cp "$WT/tools/kernel_harness.py" "$WT/tools/kernel_timing.py" "$DEST/tools/"
git -C "$WT" show "$BASE:tools/kernel_harness.py" > "$DEST/old_harness.py"
cp "$WT"/tests/kernel_integrity/cheats/*.py "$DEST/cheats/"
cp -r "$WT/examples/kernel" "$DEST/examples/"
cp "$WT/tests/kernel_integrity/run_h100.sh" "$DEST/"
du -sh "$DEST"
