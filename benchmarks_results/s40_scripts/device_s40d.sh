# Session 40, device call D (nvidia-h200, cold). Runtime code as in calls A-C (thunder/fastpath unchanged since
# session 39's guard fix). (1) #1657 alone three times (31 repeats, pinned to core 2, nothing else running), as in
# sessions 30-39. (2) lightning-thunder's test_nvfuser and test_nvfuser_remat whole, then issue 3's six suites with
# -k cuda, each fast path on against off (both runs at once, 7 xdist workers each), last compared on the device in
# sessions 34 and 32, before the guard fix.
# Carry [".device"]; writes to $OUT (five files: the device returns at most eight; .failed lists in logs.tar.gz).
set -uo pipefail
source .ci/device_prelude.sh >/dev/null 2>&1 || exit 1
{ sha1sum thunder/fastpath/*.py .ci/compare_shipped_suites; uptime; } 2>&1 | tee "$OUT/versions_and_uptime.log"
for i in 1 2 3; do
  timeout 60 taskset -c 2 python3 thunder/benchmarks/small_graph.py --device cuda --cases issue1657 --repeats 31 \
    2>&1 | grep -v -i warn | sed "s/^/run $i | /" >> "$OUT/issue1657_only.log"
done
uptime | tee -a "$OUT/versions_and_uptime.log"
compare() {  # $1: name, $2: time limit (s), $3: -k expression (or ""), rest: modules
  local name=$1 limit=$2 k=$3; shift 3
  PYTEST_ADDOPTS="-n 7${k:+ -k '$k'}" SHIPPED_LOGS=/tmp/s40d_$name PY=$(command -v python3) timeout "$limit" taskset -c 0-15 \
    bash .ci/compare_shipped_suites "$@" 2>&1 | grep -v -i warn | tee "$OUT/compare_$name.log"
  echo "exit ${PIPESTATUS[0]}" | tee -a "$OUT/compare_$name.log"
  uptime | tee -a "$OUT/versions_and_uptime.log"
}
compare nvfuser 140 "" thunder.tests.test_nvfuser thunder.tests.test_nvfuser_remat
compare six_cuda 290 cuda thunder.tests.test_core thunder.tests.test_update_aliases thunder.tests.test_inplace_copy \
  thunder.tests.test_autocast thunder.tests.test_transforms thunder.tests.test_jit_general
tar -C /tmp -czf "$OUT/logs.tar.gz" s40d_nvfuser s40d_six_cuda
grep -E "^run . \| issue1657 .*(eager|fast|fec|computation)" "$OUT/issue1657_only.log"
