# Session 9, device call D (nvidia-h200): call C ran out of time after 24 of test_dynamo's CUDA tests (the same
# 18 passed / 6 failed sequence on and off, printed without names). Here, with names (-vv): test_networks -k cuda,
# then the test_dynamo CUDA tests that come after those 24 in this CPU's collection order.
set -uo pipefail
source .device/setup.sh || exit 1
date
SHIPPED="-vv thunder.tests.test_networks thunder.tests.test_dynamo" \
  SHIPPED_K="cuda and not (test_basic or cat_no_split or reproducer or fallback_to_inductor or force_skip or fxreport or method_only or no_grad or test_splitter_autocast_ctx_Dynamo)" \
  SHIPPED_LOGS="$OUT/shipped_logs" LOG=networks_dynamo_rest_cuda.log SHIPPED_TIMEOUT=400 bash .ci/gpu_run.sh shipped
date
