# Session 29, device call C (nvidia-h200): lightning-thunder's test_networks -k cuda (nanoGPT and other networks,
# forward and backward, nvFuser) with the fast path on, then off, one after the other: training hits on CUDA through
# thunder/fastpath/autograd.py. Carry [".device"]; writes to $OUT.
set -uo pipefail
source .device/setup.sh >/dev/null 2>&1 || exit 1
sha1sum thunder/fastpath/*.py | tee "$OUT/code_sha1.log"
SHIPPED=thunder.tests.test_networks SHIPPED_K=cuda SHIPPED_ONE_AT_A_TIME=1 SHIPPED_TIMEOUT=540 \
  SHIPPED_LOGS="$OUT/test_networks_cuda" LOG=test_networks_cuda.log bash .ci/gpu_run.sh shipped > /dev/null 2>&1
tail -n 5 "$OUT/test_networks_cuda.log"
for m in on off; do echo "== $m"; tail -n 3 "$OUT/test_networks_cuda/$m.log" 2>/dev/null; done
