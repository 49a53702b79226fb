# Session 41, device call A (nvidia-h200, cold). Runtime code as at b7d764c: the first CUDA runs after session 40's
# guard fix (6a7a1fc: the slow tensor check declines tensors whose storage pointer cannot be read) and fe1ef9d's tests.
# (1) test_overhead.py whole (pytest-xdist -n 8 on cores 0-7). (2) lightning-thunder's test_nvfuser and
# test_nvfuser_remat whole, then issue 3's six suites with -k cuda, each fast path on against off (both runs at once,
# 7 xdist workers each), as in session 40's call D.
# Carry [".device"]; writes to $OUT.
set -uo pipefail
source .ci/device_prelude.sh >/dev/null 2>&1 || exit 1
{ sha1sum thunder/fastpath/*.py thunder/tests/test_overhead.py .ci/compare_shipped_suites; nproc; uptime; } 2>&1 \
  | tee "$OUT/versions_and_uptime.log"
timeout 150 taskset -c 0-7 python3 -m pytest -n 8 -q -p no:cacheprovider -W ignore -rfs thunder/tests/test_overhead.py \
  > "$OUT/test_overhead.log" 2>&1
echo "test_overhead exit $?" | tee -a "$OUT/test_overhead.log"
tail -n 3 "$OUT/test_overhead.log"
uptime | tee -a "$OUT/versions_and_uptime.log"
compare() {  # $1: name, $2: time limit (s), $3: -k expression (or ""), rest: modules
  local name=$1 limit=$2 k=$3; shift 3
  PYTEST_ADDOPTS="-n 7${k:+ -k '$k'}" SHIPPED_LOGS=/tmp/s41a_$name PY=$(command -v python3) timeout "$limit" taskset -c 0-15 \
    bash .ci/compare_shipped_suites "$@" 2>&1 | grep -v -i warn | tee "$OUT/compare_$name.log"
  echo "exit ${PIPESTATUS[0]}" | tee -a "$OUT/compare_$name.log"
  uptime | tee -a "$OUT/versions_and_uptime.log"
}
compare nvfuser 100 "" thunder.tests.test_nvfuser thunder.tests.test_nvfuser_remat
compare six_cuda 280 cuda thunder.tests.test_core thunder.tests.test_update_aliases thunder.tests.test_inplace_copy \
  thunder.tests.test_autocast thunder.tests.test_transforms thunder.tests.test_jit_general
tar -C /tmp -czf "$OUT/logs.tar.gz" s41a_nvfuser s41a_six_cuda
