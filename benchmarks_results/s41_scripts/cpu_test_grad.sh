# Session 41, this CPU: lightning-thunder's test_grad with the fast path on and off after session 40's guard fix (6a7a1fc)
# (last run on this CPU in session 34). It needs `fdm` (not in requirements/): installed from the device kit's wheel
# into /tmp/fdm for this run only. From the checkout's root; writes benchmarks_results/s41_scripts/logs/test_grad.log
# and both runs' failures and summaries in logs/test_grad/.
set -uo pipefail
logs=benchmarks_results/s41_scripts/logs
.venv/bin/python -m pip install -q --no-deps --target /tmp/fdm .device/extra_whl/fdm-*.whl
PYTHONPATH=/tmp/fdm SHIPPED_LOGS=$logs/test_grad bash .ci/compare_shipped_suites thunder.tests.test_grad > $logs/test_grad.log 2>&1
echo "exit $?" >> $logs/test_grad.log
for m in on off; do f=$logs/test_grad/$m.log
  { grep -E "^(FAILED|ERROR) " "$f" | cut -c1-240; tail -n 1 "$f"; } > $logs/test_grad/$m.summary.log; rm "$f"; done
