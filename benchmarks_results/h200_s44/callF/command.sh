# Session 44, device call F (nvidia-h200). test_overhead.py whole at the kept form of this session's change
# (-n 8 on cores 0-7; call A ran it at the first form, call D only its autocast, nvFuser and region tests).
# Carry [".device"]; writes to $OUT.
set -uo pipefail
source .ci/device_prelude.sh >/dev/null 2>&1 || exit 1
cp "$0" "$OUT/command.sh" 2>/dev/null
{ sha1sum thunder/fastpath/*.py thunder/tests/test_overhead.py; uptime; } 2>&1 | tee "$OUT/versions_and_uptime.log"
timeout 280 taskset -c 0-7 python3 -m pytest -n 8 -q -p no:cacheprovider -W ignore -rfs thunder/tests/test_overhead.py \
  > "$OUT/test_overhead.log" 2>&1
echo "test_overhead exit $?" | tee -a "$OUT/test_overhead.log"
tail -n 3 "$OUT/test_overhead.log"
