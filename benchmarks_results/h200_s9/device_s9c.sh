# Session 9, device call C (nvidia-h200): lightning-thunder's test_dynamo (ThunderFX) and test_networks with -k cuda,
# fast path on and off (not run on a GPU before); both runs' logs kept under $OUT/shipped_logs.
set -uo pipefail
source .device/setup.sh || exit 1
date
SHIPPED="thunder.tests.test_dynamo thunder.tests.test_networks" SHIPPED_K=cuda SHIPPED_LOGS="$OUT/shipped_logs" \
  LOG=dynamo_networks_cuda.log SHIPPED_TIMEOUT=470 bash .ci/gpu_run.sh shipped
date
