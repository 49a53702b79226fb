# Session 25, device call B: transforms_differential.py on CUDA (cores 8-15) while test_overhead.py runs with its
# CUDA tests (cores 0-7); then, alone, #1657 and RMSNorm pinned to one core (small_graph.py, hit_breakdown.py).
# Carry [".device"]; writes to $OUT.
set -uo pipefail
source .device/setup.sh >/dev/null 2>&1 || exit 1
site=$(python3 -c "import thunder, os; print(os.path.dirname(thunder.__file__))")
ln -sfn "$PWD/thunder/fastpath" "$site/fastpath"
export PYTHONUNBUFFERED=1
uptime | tee "$OUT/uptime.log"
(timeout 200 taskset -c 8-15 python3 benchmarks_results/s25_scripts/transforms_differential.py --device cuda 2>&1 \
  | grep -E "^(ok|DIFF|SETUP|summ)" > "$OUT/transforms_cuda.log") &
timeout 200 taskset -c 0-7 python3 -m pytest -q -p no:cacheprovider -W ignore thunder/tests/test_overhead.py 2>&1 \
  | tail -n 8 > "$OUT/test_overhead_cuda.log"
wait
cat "$OUT/transforms_cuda.log" "$OUT/test_overhead_cuda.log"
uptime | tee -a "$OUT/uptime.log"
timeout 100 taskset -c 5 python3 thunder/benchmarks/small_graph.py --device cuda --cases issue1657,rmsnorm --repeats 31 \
  2>&1 | grep -v -i warn | tee "$OUT/small_graph_pinned.log"
timeout 60 taskset -c 5 python3 thunder/benchmarks/hit_breakdown.py --device cuda --number 5000 --repeats 9 \
  --cases issue1657 2>&1 | grep -v -i warn | tee "$OUT/breakdown_issue1657_pinned.log"
uptime | tee -a "$OUT/uptime.log"
