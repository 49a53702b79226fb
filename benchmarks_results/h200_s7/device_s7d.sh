set -uo pipefail
source .device/setup.sh || exit 1
date
SHIPPED=thunder.tests.test_nvfuser LOG=test_nvfuser.log bash .ci/gpu_run.sh shipped 2>&1 | tail -n 4
date
SHIPPED=thunder.tests.test_inplace_copy SHIPPED_K=cuda LOG=inplace_copy_cuda.log bash .ci/gpu_run.sh shipped 2>&1 | tail -n 4
date; echo "== A/B"
N=5000 R=15 python3 benchmarks_results/s7_scripts/ab_region_hit.py cuda rmsnorm_1x2880,issue1657 2>&1 | grep -v -i warn > "$OUT/ab2.log"; grep -A7 "^==" "$OUT/ab2.log"
date
