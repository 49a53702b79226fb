# Session 10, device call C (nvidia-h200): session 9's call D in small: test_networks' tests that ran before the failing
# one in that call's pytest process, then test_nanogpt_complete_autograd_nvfuser_cuda itself, fast path on and off
# at once on the one GPU (compare_shipped_suites), repeated while time is left.
# Its first version gave LOG and SHIPPED_LOGS the same path (a file where compare_shipped_suites wants a folder):
# nothing ran in call C; fixed below and checked on this CPU with a CPU selection (SELECTION) before call D.
set -uo pipefail
source .device/setup.sh >/dev/null 2>&1 || exit 1
end=$(( $(date +%s) + ${SECONDS_FOR_ALL:-480} ))
i=0
while [ $(( end - $(date +%s) )) -gt 60 ]; do
  echo "== iteration $i $(date +%T)"
  SHIPPED="-vv thunder.tests.test_networks" \
    SHIPPED_K="${SELECTION:-cuda and (test_nanogpt_block or test_nanogpt_complete_DynamoThunder or test_nanogpt_complete_autograd_nvfuser)}" \
    SHIPPED_LOGS="$OUT/iteration_${i}_logs" LOG=iteration_$i.log SHIPPED_TIMEOUT=$(( end - $(date +%s) )) bash .ci/gpu_run.sh shipped \
    | grep -E "passed|failed|^FAILED|== " | head -n 12
  i=$((i + 1))
done
date +%T
