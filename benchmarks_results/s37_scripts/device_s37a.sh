# Session 37, device call A (nvidia-h200): two things session 36 left without device time, run at once on separate
# cores (tests only; nothing is timed):
# (1) test_overhead.py whole, at the test code with session 36's stricter assert_bitwise (signs of zeros) and its new
#     test_bools_ints_and_signed_zeros_as_upstream: never run on CUDA (cores 0-3, pytest-xdist -n 4);
# (2) the shipped tests that need Hugging Face transformers (4.57.6 from .device/hf_whl, see CONTRIBUTING.md),
#     test_recipes and test_networks whole, fast path on and off at once (cores 4-15, -n 5 each), with
#     .ci/fastpath_site's report. Session 36's call D ran out of time on them (150 s).
# Carry [".device"]; writes to $OUT; logs in one tarball.
set -uo pipefail
source .ci/device_prelude.sh || exit 1
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/hf .device/hf_whl/*.whl
logs=/tmp/s37a_logs; rm -rf $logs; mkdir -p $logs
{ git log -1 --format=%H 2>/dev/null; sha1sum thunder/fastpath/*.py thunder/tests/test_overhead.py .ci/compare_shipped_suites; nproc; uptime; } 2>&1 | tee "$OUT/versions_and_uptime.log"
(
  timeout 300 taskset -c 0-3 python3 -m pytest -n 4 -v -p no:cacheprovider -W ignore -rfs \
    thunder/tests/test_overhead.py > $logs/test_overhead_cuda.log 2>&1
  echo "== test_overhead (exit $?)"; tail -n 1 $logs/test_overhead_cuda.log
  grep -E "(PASSED|FAILED|ERROR) .*(signed_zeros|bitwise)" $logs/test_overhead_cuda.log | sed 's/^\[gw[0-9]*\] \[ *[0-9]*%\] //'
) > "$OUT/test_overhead.log" 2>&1 &
(
  rm -f /tmp/report.jsonl
  echo "== hf: test_recipes, test_networks"
  PYTHONPATH="$PWD/.ci/fastpath_site:/tmp/hf:$PYTHONPATH" FASTPATH_REPORT=/tmp/report.jsonl PYTEST_ADDOPTS="-n 5" \
    SHIPPED_LOGS=$logs/hf PY=$(command -v python3) timeout 540 taskset -c 4-15 bash .ci/compare_shipped_suites \
    thunder.tests.test_recipes thunder.tests.test_networks 2>&1 | grep -v -i warn
  echo "exit ${PIPESTATUS[0]}"
  python3 .ci/summarize_fastpath_report /tmp/report.jsonl
) > "$OUT/shipped_hf.log" 2>&1 &
wait
cat "$OUT/test_overhead.log" "$OUT/shipped_hf.log"
uptime | tee -a "$OUT/versions_and_uptime.log"
tar -C /tmp -czf "$OUT/logs.tar.gz" s37a_logs
