# Session 43, device call C (nvidia-h200). (1) test_overhead.py whole again, with more time (call B's run reached 161 of
# 163 tests in its 200 s); (2) lightning-thunder's test_nvfuser and test_nvfuser_remat, fast path on against off
# (nvfuser.py changed); (3) small_models.py --autocast for nanogpt_1tok only (call B: upstream Thunder with nvFuser
# failed in nvFuser's compiler on llama2_1tok under autocast, before any fast system ran).
# Carry [".device"]; writes to $OUT.
set -uo pipefail
source .ci/device_prelude.sh >/dev/null 2>&1 || exit 1
cp "$0" "$OUT/command.sh" 2>/dev/null
{ sha1sum thunder/fastpath/*.py thunder/tests/test_overhead.py thunder/benchmarks/*.py; nproc; uptime; } 2>&1 | tee "$OUT/versions_and_uptime.log"
timeout 280 taskset -c 0-7 python3 -m pytest -n 8 -q -p no:cacheprovider -W ignore -rfs thunder/tests/test_overhead.py \
  > "$OUT/test_overhead.log" 2>&1
echo "test_overhead exit $?" | tee -a "$OUT/test_overhead.log"
tail -n 3 "$OUT/test_overhead.log"
PYTEST_ADDOPTS="-n 7" SHIPPED_LOGS="$OUT/shipped_nvfuser" PY=$(command -v python3) timeout 110 \
  bash .ci/compare_shipped_suites thunder.tests.test_nvfuser thunder.tests.test_nvfuser_remat 2>&1 | tee "$OUT/shipped_nvfuser.log"
timeout 140 taskset -c 2 python3 thunder/benchmarks/small_models.py --device cuda --autocast --cases nanogpt_1tok \
  --json "$OUT/small_models_autocast_cuda.json" 2>&1 | grep -v -i warn | tail -n 12 | tee "$OUT/small_models_autocast_cuda.log"
uptime | tee -a "$OUT/versions_and_uptime.log"
