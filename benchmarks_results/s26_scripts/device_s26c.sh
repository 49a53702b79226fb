# Session 26, device call C: sdpa_grad_difference.py on CUDA, without and with deterministic algorithms (cores 8-15),
# while test_overhead.py runs with its CUDA tests (cores 0-7); then, alone, #1657 and RMSNorm pinned to one core
# (small_graph.py). Carry [".device"]; writes to $OUT.
set -uo pipefail
source .device/setup.sh >/dev/null 2>&1 || exit 1
site=$(python3 -c "import thunder, os; print(os.path.dirname(thunder.__file__))")
ln -sfn "$PWD/thunder/fastpath" "$site/fastpath"
export PYTHONUNBUFFERED=1
uptime | tee "$OUT/uptime.log"
(for extra in "" --deterministic; do
   echo "=== sdpa_grad_difference.py $extra"
   timeout 120 taskset -c 8-15 python3 benchmarks_results/s26_scripts/sdpa_grad_difference.py --device cuda $extra 2>&1 \
     | grep -v -i warn
 done > "$OUT/sdpa_grad_difference_cuda.log") &
timeout 300 taskset -c 0-7 python3 -m pytest -q -p no:cacheprovider -W ignore -rs thunder/tests/test_overhead.py 2>&1 \
  | tail -n 30 > "$OUT/test_overhead_cuda.log"
wait
cat "$OUT/sdpa_grad_difference_cuda.log"; tail -n 3 "$OUT/test_overhead_cuda.log"
uptime | tee -a "$OUT/uptime.log"
timeout 100 taskset -c 5 python3 thunder/benchmarks/small_graph.py --device cuda --cases issue1657,rmsnorm --repeats 31 \
  2>&1 | grep -v -i warn | tee "$OUT/small_graph_pinned.log"
uptime | tee -a "$OUT/uptime.log"
