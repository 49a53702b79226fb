# Session 27, device call A: test_overhead.py whole on CUDA after the private-API fallbacks (8bdabdd; its new
# nvFuser case forces the fallback on regions), then alone, pinned to one core: #1657 and RMSNorm (small_graph.py),
# hit_breakdown.py's guard rows for the growth per tensor input and per parameter, and #1657 again.
# Carry [".device"]; writes to $OUT.
set -uo pipefail
source .device/setup.sh >/dev/null 2>&1 || exit 1
site=$(python3 -c "import thunder, os; print(os.path.dirname(thunder.__file__))")
ln -sfn "$PWD/thunder/fastpath" "$site/fastpath"
export PYTHONUNBUFFERED=1
uptime | tee "$OUT/uptime.log"
timeout 280 python3 -m pytest -q -p no:cacheprovider -W ignore -rs thunder/tests/test_overhead.py 2>&1 \
  | tail -n 30 > "$OUT/test_overhead_cuda.log"
tail -n 3 "$OUT/test_overhead_cuda.log"
uptime | tee -a "$OUT/uptime.log"
timeout 80 taskset -c 5 python3 thunder/benchmarks/small_graph.py --device cuda --cases issue1657,rmsnorm --repeats 31 \
  2>&1 | grep -v -i warn | tee "$OUT/small_graph_pinned_1.log"
timeout 120 taskset -c 5 python3 thunder/benchmarks/hit_breakdown.py --device cuda --number 1000 --repeats 7 \
  --cases inputs_16,inputs_64,params_32,params_128 2>&1 | grep -v -i warn | tee "$OUT/breakdown_scaling_pinned.log"
timeout 60 taskset -c 5 python3 thunder/benchmarks/small_graph.py --device cuda --cases issue1657 --repeats 31 \
  2>&1 | grep -v -i warn | tee "$OUT/small_graph_pinned_2.log"
uptime | tee -a "$OUT/uptime.log"
