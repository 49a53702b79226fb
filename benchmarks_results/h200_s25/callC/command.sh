# Session 25, device call C: what call B's 200 s limits cut off. test_overhead.py with its CUDA tests (cores 0-7),
# alongside transforms_differential.py on CUDA for the configurations that call B did not reach (cores 8-15).
# Carry [".device"]; writes to $OUT.
set -uo pipefail
source .device/setup.sh >/dev/null 2>&1 || exit 1
site=$(python3 -c "import thunder, os; print(os.path.dirname(thunder.__file__))")
ln -sfn "$PWD/thunder/fastpath" "$site/fastpath"
export PYTHONUNBUFFERED=1
uptime | tee "$OUT/uptime.log"
configs=extraction_only_prologue_skip_inputs,materialization,torchcompile_executor,symbolic_values,cudagraph,nvfuser_and_cudagraph
(timeout 420 taskset -c 8-15 python3 benchmarks_results/s25_scripts/transforms_differential.py --device cuda \
  --configs $configs 2>&1 | grep -E "^(ok|DIFF|SETUP|summ|[A-Za-z]*Error)" > "$OUT/transforms_cuda_rest.log") &
timeout 420 taskset -c 0-7 python3 -m pytest -q -p no:cacheprovider -W ignore -rs thunder/tests/test_overhead.py 2>&1 \
  | tail -n 30 > "$OUT/test_overhead_cuda.log"
wait
cat "$OUT/transforms_cuda_rest.log" "$OUT/test_overhead_cuda.log"
uptime | tee -a "$OUT/uptime.log"
