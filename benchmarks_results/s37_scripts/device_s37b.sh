# Session 37, device call B (nvidia-h200):
# (1) Call A's comparison of test_recipes and test_networks failed test_plugins_composition and
#     test_plugins_hybrid_ddpfsdp only with the fast path on, both with EADDRINUSE: the on and off runs went at once
#     and both listened on ports 12345 and 1234 (the tests mock thunder.jit; no jitted callable runs in them).
#     Again one run at a time (SHIPPED_ONE_AT_A_TIME=1): first the plugin tests alone, then both modules whole
#     (-n 12 on cores 4-15), with .ci/fastpath_site's report.
# (2) Then, nothing else running, #1657 alone three times (31 repeats, pinned to core 2), as in sessions 30-36.
# Carry [".device"]; writes to $OUT; logs in one tarball.
set -uo pipefail
source .ci/device_prelude.sh || exit 1
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/hf .device/hf_whl/*.whl
logs=/tmp/s37b_logs; rm -rf $logs; mkdir -p $logs
{ sha1sum thunder/fastpath/*.py thunder/benchmarks/small_graph.py .ci/compare_shipped_suites; uptime; } 2>&1 | tee "$OUT/versions_and_uptime.log"
compare() {  # $1: name, $2: PYTEST_ADDOPTS, $3: timeout, rest: modules and pytest arguments
  local name=$1 addopts=$2 limit=$3; shift 3
  rm -f /tmp/report.jsonl
  echo "== $name: $*"
  PYTHONPATH="$PWD/.ci/fastpath_site:/tmp/hf:$PYTHONPATH" FASTPATH_REPORT=/tmp/report.jsonl PYTEST_ADDOPTS="$addopts" \
    SHIPPED_ONE_AT_A_TIME=1 SHIPPED_LOGS=$logs/$name PY=$(command -v python3) timeout "$limit" taskset -c 4-15 \
    bash .ci/compare_shipped_suites "$@" 2>&1 | grep -v -i warn
  echo "exit ${PIPESTATUS[0]}"
  python3 .ci/summarize_fastpath_report /tmp/report.jsonl
  uptime
}
compare plugins "" 90 thunder.tests.test_recipes -k plugins 2>&1 | tee "$OUT/shipped_hf.log"
compare hf "-n 12" 330 thunder.tests.test_recipes thunder.tests.test_networks 2>&1 | tee -a "$OUT/shipped_hf.log"
only() {
  timeout 60 taskset -c 2 python3 thunder/benchmarks/small_graph.py --device cuda --cases issue1657 --repeats 31 \
    2>&1 | grep -v -i warn > $logs/issue1657_only_$1.log
  uptime >> "$OUT/versions_and_uptime.log"
}
for i in 1 2 3; do only $i; done
cp $logs/issue1657_only_*.log "$OUT/" 2>/dev/null
grep -h -E "^issue1657 .*(eager|fast|fec|computation)" $logs/issue1657_only_*.log
tar -C /tmp -czf "$OUT/logs.tar.gz" s37b_logs
