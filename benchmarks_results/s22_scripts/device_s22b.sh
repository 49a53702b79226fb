# Session 22, device call B (nvidia-h200): after the nested-tensor fix (2786e34): test_overhead.py whole on CUDA
# (its pinned region hit now has the nested line), hit_breakdown.py's guard rows for the growth per tensor input and
# per parameter, the nested line's A/B on CUDA, then #1657 alone pinned to one core. Carry [".device"]; writes to $OUT.
set -uo pipefail
source .device/setup.sh >/dev/null 2>&1 || exit 1
site=$(python3 -c "import thunder, os; print(os.path.dirname(thunder.__file__))")
ln -sfn "$PWD/thunder/fastpath" "$site/fastpath"
export PYTHONUNBUFFERED=1
uptime | tee "$OUT/uptime.log"
timeout 300 python3 -m pytest -q -p no:cacheprovider -W ignore thunder/tests/test_overhead.py 2>&1 | tail -n 15 | tee "$OUT/test_overhead.log"
timeout 120 python3 thunder/benchmarks/hit_breakdown.py --device cuda --number 1000 --repeats 7 --cases inputs_16,inputs_64,params_32,params_128 2>&1 | grep -v -i warn | tee "$OUT/breakdown_scaling.log"
timeout 100 python3 benchmarks_results/s22_scripts/nested_check_ab.py --device cuda --number 2000 --repeats 9 2>&1 | grep -v -i warn | tee "$OUT/nested_check_ab_cuda.log"
timeout 80 taskset -c 5 python3 thunder/benchmarks/small_graph.py --device cuda --cases issue1657 --repeats 31 2>&1 | grep -v -i warn | tee "$OUT/small_graph_issue1657_pinned.log"
timeout 60 taskset -c 5 python3 thunder/benchmarks/hit_breakdown.py --device cuda --number 5000 --repeats 9 --cases issue1657 2>&1 | grep -v -i warn | tee "$OUT/breakdown_issue1657_pinned.log"
uptime | tee -a "$OUT/uptime.log"
