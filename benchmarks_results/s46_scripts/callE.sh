# Session 46, device call E (nvidia-h200). (1) lightning-thunder's test_nvfuser and test_nvfuser_remat, fast path on
# against off, last compared in session 43 (call C), before session 44's autocast change and session 45's layout
# fix; (2) small_models.py for the two one-token cases, last run in session 42 (call B), pinned to core 2.
# Carry [".device"]; writes to $OUT.
set -uo pipefail
source .ci/device_prelude.sh >/dev/null 2>&1 || exit 1
cp "$0" "$OUT/command.sh" 2>/dev/null
{ git log -1 --format=%H 2>/dev/null; sha1sum thunder/fastpath/*.py thunder/benchmarks/*.py; nproc; uptime; } 2>&1 | tee "$OUT/versions_and_uptime.log"
PYTEST_ADDOPTS="-n 7" SHIPPED_LOGS="$OUT/shipped_nvfuser" PY=$(command -v python3) timeout 120 \
  bash .ci/compare_shipped_suites thunder.tests.test_nvfuser thunder.tests.test_nvfuser_remat 2>&1 | tee "$OUT/shipped_nvfuser.log"
uptime | tee -a "$OUT/versions_and_uptime.log"
timeout 220 taskset -c 2 python3 thunder/benchmarks/small_models.py --device cuda --cases nanogpt_1tok,llama2_1tok \
  --json "$OUT/small_models_cuda.json" 2>&1 | grep -v -i warn | tail -n 16 | tee "$OUT/small_models_cuda.log"
uptime | tee -a "$OUT/versions_and_uptime.log"
