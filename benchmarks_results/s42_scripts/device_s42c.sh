# Session 42, device call C (nvidia-h200). After the guard change for one tensor under two names: lightning-thunder's
# test_nvfuser and test_nvfuser_remat whole, fast path on against off (both runs at once, 7 xdist workers each), as in
# session 41's call A. (Issue 3's six suites with -k cuda, ~4.5 min, did not fit the device time left.)
# Carry [".device"]; writes to $OUT.
set -uo pipefail
source .ci/device_prelude.sh >/dev/null 2>&1 || exit 1
{ sha1sum thunder/fastpath/*.py .ci/compare_shipped_suites; nproc; uptime; } 2>&1 | tee "$OUT/versions_and_uptime.log"
PYTEST_ADDOPTS="-n 7" SHIPPED_LOGS=/tmp/s42c_nvfuser PY=$(command -v python3) timeout 150 taskset -c 0-15 \
  bash .ci/compare_shipped_suites thunder.tests.test_nvfuser thunder.tests.test_nvfuser_remat 2>&1 | grep -v -i warn \
  | tee "$OUT/compare_nvfuser.log"
echo "exit ${PIPESTATUS[0]}" | tee -a "$OUT/compare_nvfuser.log"
uptime | tee -a "$OUT/versions_and_uptime.log"
tar -C /tmp -czf "$OUT/logs.tar.gz" s42c_nvfuser
