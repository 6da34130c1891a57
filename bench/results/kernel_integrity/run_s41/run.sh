set -u
export DEV=.dev/s41
mkdir -p "$DEV" && cp -r workloads/goblin_hook workloads/tracer_checks "$DEV/" && tar -xJf "$DEV/carry.tar.xz" -C "$DEV"
mkdir -p .dev/kernel-honest/lib && cp $DEV/carry/goblin .dev/kernel-honest/ && cp $DEV/carry/lib/* .dev/kernel-honest/lib/
ls .dev/kernel-honest/tools
export TORCH_EXTENSIONS_DIR=/tmp/goblin_ext PYTHONUNBUFFERED=1
OLD_CHEATS=" " REP=100 timeout 330 bash .dev/kernel-honest/run_h100.sh cheats > $OUT/cheats.txt 2>&1
echo "cheats rc=$?"
BUDGET=200 timeout 200 bash tracer/device/device.sh tracesteps > $OUT/tracesteps.txt 2>&1
echo "tracesteps rc=$?"
cp -r /tmp/kernel_integrity/cheats $OUT/kcheats 2>/dev/null; cp -r /tmp/out/w $OUT/w 2>/dev/null
grep -E "^================|exit [0-9]|refused|accepted|tampered|timer" $OUT/cheats.txt | head -80
tail -8 $OUT/tracesteps.txt
