set -uo pipefail
source .device/setup.sh || exit 1
date
bash .ci/gpu_run.sh measure > "$OUT/measure_stdout.log" 2>&1
tail -n 5 "$OUT/test_overhead.log"; head -30 "$OUT/cuda.log"; cat "$OUT/cpu_host.log" "$OUT/breakdown_cuda.log" "$OUT/breakdown_cpu.log" "$OUT/breakdown_scaling.log"
date; echo "== A/B"
N=5000 R=15 python3 benchmarks_results/s7_scripts/ab_region_hit.py cuda issue1657,two_8x8,rmsnorm_1x2880 2>&1 | grep -v -i warn > "$OUT/ab.log"; grep -A7 "^==" "$OUT/ab.log"
date
