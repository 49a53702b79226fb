# Session 47, device call E (nvidia-h200): test_overhead.py whole on CUDA (last run in session 45, calls C and D), as
# the evidence behind issue 4's tests at the code that the closing note reports.
# Carry [".device"]; writes to $OUT.
set -uo pipefail
source .ci/device_prelude.sh >/dev/null 2>&1 || exit 1
cp "$0" "$OUT/command.sh" 2>/dev/null
{ git log -1 --format=%H 2>/dev/null; sha1sum thunder/fastpath/*.py thunder/tests/test_overhead.py; nproc; uptime; } 2>&1 \
  | tee "$OUT/versions_and_uptime.log"
timeout 300 taskset -c 0-7 python3 -m pytest -n 8 -q -p no:cacheprovider -W ignore -rfs thunder/tests/test_overhead.py \
  > "$OUT/test_overhead.log" 2>&1
echo "test_overhead exit $?" | tee -a "$OUT/test_overhead.log"
tail -n 3 "$OUT/test_overhead.log"
uptime | tee -a "$OUT/versions_and_uptime.log"
