# Session 34, device call D (nvidia-h200): lightning-thunder's test_nvfuser and test_nvfuser_remat with the fast path
# on and off (.ci/gpu_run.sh shipped: both runs at once), at the code after session 33's fix (test_nvfuser last ran
# on the device in session 29, test_nvfuser_remat in session 32). Carry [".device"]; writes to $OUT.
set -uo pipefail
source .device/setup.sh >/dev/null 2>&1 || exit 1
export PYTHONUNBUFFERED=1
sha1sum thunder/fastpath/*.py | tee "$OUT/code_sha1.log"
uptime | tee "$OUT/uptime.log"
SHIPPED="thunder.tests.test_nvfuser thunder.tests.test_nvfuser_remat" SHIPPED_TIMEOUT=280 SHIPPED_LOGS="$OUT/shipped" \
  LOG=test_nvfuser.log bash .ci/gpu_run.sh shipped
uptime | tee -a "$OUT/uptime.log"
