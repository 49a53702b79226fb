# Session 8, device call C: lightning-thunder's shipped suites on the H200, fast path on vs off.
set -uo pipefail
source .device/setup.sh || exit 1
date
SHIPPED=thunder.tests.test_nvfuser LOG=test_nvfuser.log bash .ci/gpu_run.sh shipped 2>&1 | tail -n 4
date
SHIPPED=thunder.tests.test_inplace_copy SHIPPED_K=cuda LOG=inplace_copy_cuda.log bash .ci/gpu_run.sh shipped 2>&1 | tail -n 4
date
SHIPPED=thunder.tests.test_core SHIPPED_K=cuda SHIPPED_TIMEOUT=330 LOG=test_core_cuda.log bash .ci/gpu_run.sh shipped 2>&1 | tail -n 6
date
