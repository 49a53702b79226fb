# Session 42, device call D (nvidia-h200, warm after call C; ~360 s of device time left). Issue 3's six suites with
# -k cuda, fast path on against off (both runs at once, 7 xdist workers each), as in session 41's call A.
# Carry [".device"]; writes to $OUT.
set -uo pipefail
source .ci/device_prelude.sh >/dev/null 2>&1 || exit 1
PYTEST_ADDOPTS="-n 7 -k cuda" SHIPPED_LOGS=/tmp/s42d_six_cuda PY=$(command -v python3) timeout 300 taskset -c 0-15 \
  bash .ci/compare_shipped_suites thunder.tests.test_core thunder.tests.test_update_aliases thunder.tests.test_inplace_copy \
  thunder.tests.test_autocast thunder.tests.test_transforms thunder.tests.test_jit_general 2>&1 | grep -v -i warn \
  | tee "$OUT/compare_six_cuda.log"
echo "exit ${PIPESTATUS[0]}" | tee -a "$OUT/compare_six_cuda.log"
uptime | tee "$OUT/uptime.log"
