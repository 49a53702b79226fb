# Session 41, device call E (nvidia-h200, cold): test_overhead.py whole (pytest-xdist -n 8 on cores 0-7) after the
# session's last test changes (training-test error forms must be RuntimeError, the prologue-without-checks test, two
# more submodule forms, the values upstream does not check). Runtime code unchanged since 6a7a1fc.
# Carry [".device"]; writes to $OUT.
set -uo pipefail
source .ci/device_prelude.sh >/dev/null 2>&1 || exit 1
{ sha1sum thunder/fastpath/*.py thunder/tests/test_overhead.py; uptime; } 2>&1 | tee "$OUT/versions_and_uptime.log"
timeout 200 taskset -c 0-7 python3 -m pytest -n 8 -q -p no:cacheprovider -W ignore -rfs thunder/tests/test_overhead.py \
  > "$OUT/test_overhead.log" 2>&1
echo "test_overhead exit $?" | tee -a "$OUT/test_overhead.log"
tail -n 3 "$OUT/test_overhead.log"
uptime | tee -a "$OUT/versions_and_uptime.log"
