# Session 37, device call C (nvidia-h200): call B's one-at-a-time comparison of test_recipes and test_networks ran
# out of time after its fast-path-on run (9 failed, 47 passed, 2 skipped); this is the fast-path-off run alone,
# with the flags that .ci/compare_shipped_suites gives it (-n 12 on cores 4-15, as in call B), and the comparison
# against call B's on.failed (carried in benchmarks_results/h200_s37/callB).
# Carry [".device"]; writes to $OUT.
set -uo pipefail
source .ci/device_prelude.sh || exit 1
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/hf .device/hf_whl/*.whl
{ sha1sum thunder/fastpath/*.py; uptime; } 2>&1 | tee "$OUT/versions_and_uptime.log"
mkdir -p /tmp/s37c && cd /tmp/s37c
THUNDER_FASTPATH=0 PYTHONPATH="/tmp/hf:$PYTHONPATH" timeout 400 taskset -c 4-15 python3 -m pytest -n 12 -q -rfE \
  -p no:cacheprovider -W ignore -W error::thunder.fastpath.cache_hit.GuardBuildWarning -p thunder.fastpath \
  --pyargs thunder.tests.test_recipes thunder.tests.test_networks > "$OUT/off.log" 2>&1
echo "exit $?"; cd - >/dev/null
grep -E '^(FAILED|ERROR) ' "$OUT/off.log" | sed 's/ - .*//' | sort -u > "$OUT/off.failed"
echo "fast path off: $(tail -n 1 "$OUT/off.log")"
echo "failing or erroring only with the fast path on (call B's on.failed against this run):"
comm -23 benchmarks_results/h200_s37/callB/logs/hf/on.failed "$OUT/off.failed"
echo "(end of list)"
uptime | tee -a "$OUT/versions_and_uptime.log"
