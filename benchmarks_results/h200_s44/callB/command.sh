# Session 44, device call B (nvidia-h200, warm after call A). (1) lightning-thunder's test_autocast -k cuda, fast path
# on against off (hits under autocast changed); (2) small_models.py --autocast for nanogpt_1tok on core 2 (session 43,
# call C: fast 0.697x upstream). Carry [".device"]; writes to $OUT.
set -uo pipefail
source .ci/device_prelude.sh >/dev/null 2>&1 || exit 1
cp "$0" "$OUT/command.sh" 2>/dev/null
{ sha1sum thunder/fastpath/*.py thunder/tests/test_overhead.py thunder/benchmarks/*.py; nproc; uptime; } 2>&1 | tee "$OUT/versions_and_uptime.log"
PYTEST_ADDOPTS="-n 7 -k cuda" SHIPPED_LOGS="$OUT/shipped_autocast" PY=$(command -v python3) timeout 150 \
  bash .ci/compare_shipped_suites thunder.tests.test_autocast 2>&1 | tee "$OUT/shipped_autocast.log"
timeout 200 taskset -c 2 python3 thunder/benchmarks/small_models.py --device cuda --autocast --cases nanogpt_1tok \
  --json "$OUT/small_models_autocast_cuda.json" 2>&1 | grep -v -i warn | tail -n 12 | tee "$OUT/small_models_autocast_cuda.log"
uptime | tee -a "$OUT/versions_and_uptime.log"
