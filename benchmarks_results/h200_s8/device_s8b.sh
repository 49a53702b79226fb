# Session 8, device call B: `bash .ci/gpu_run.sh measure` (tests, benchmark, breakdowns), summaries printed.
set -uo pipefail
source .device/setup.sh || exit 1
date
bash .ci/gpu_run.sh measure > "$OUT/measure_stdout.log" 2>&1
tail -n 3 "$OUT/test_overhead.log"; head -30 "$OUT/cuda.log"; cat "$OUT/cpu_host.log" "$OUT/breakdown_cuda.log" "$OUT/breakdown_cpu.log" "$OUT/breakdown_scaling.log"
date
