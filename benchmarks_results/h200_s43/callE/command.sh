# Session 43, device call E (nvidia-h200), after the review's mend (guard.same_layout_check now serves FusionRegion):
# test_overhead.py's nvFuser and region tests (-n 8 on cores 0-7). Carry [".device"]; writes to $OUT.
set -uo pipefail
source .ci/device_prelude.sh >/dev/null 2>&1 || exit 1
cp "$0" "$OUT/command.sh" 2>/dev/null
sha1sum thunder/fastpath/*.py thunder/tests/test_overhead.py | tee "$OUT/versions.log"
timeout 150 taskset -c 0-7 python3 -m pytest -n 8 -q -p no:cacheprovider -W ignore -rfs thunder/tests/test_overhead.py \
  -k "nvfuser or region or layout" > "$OUT/test_overhead_nvfuser.log" 2>&1
echo "exit $?" | tee -a "$OUT/test_overhead_nvfuser.log"
tail -n 3 "$OUT/test_overhead_nvfuser.log"
