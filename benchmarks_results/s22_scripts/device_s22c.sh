# Session 22, device call C (nvidia-h200), the final code: lightning-thunder's test_nvfuser with the fast path forced
# on and off, then test_overhead.py's tests of this session. Carry [".device"]; writes to $OUT.
set -uo pipefail
source .device/setup.sh >/dev/null 2>&1 || exit 1
uptime | tee "$OUT/uptime.log"
SHIPPED_TIMEOUT=300 LOG=test_nvfuser.log bash .ci/gpu_run.sh shipped
timeout 200 python3 -m pytest -q -p no:cacheprovider -W ignore thunder/tests/test_overhead.py -k "nested or shape or Generated or nvfuser" 2>&1 | tail -n 5 | tee "$OUT/test_overhead_session22.log"
uptime | tee -a "$OUT/uptime.log"
