# Session 22, device call A (nvidia-h200): test_overhead.py whole on CUDA (with the dispatcher's index by the first
# argument's shape and its two tests), cache_entries.py on CUDA, the index's A/B on CUDA, then #1657 alone pinned to
# one core (a single-entry hit, where the index is not built). Carry [".device"]; writes to $OUT.
set -uo pipefail
source .device/setup.sh >/dev/null 2>&1 || exit 1
site=$(python3 -c "import thunder, os; print(os.path.dirname(thunder.__file__))")
ln -sfn "$PWD/thunder/fastpath" "$site/fastpath"
export PYTHONUNBUFFERED=1
uptime | tee "$OUT/uptime.log"
timeout 330 python3 -m pytest -q -p no:cacheprovider -W ignore thunder/tests/test_overhead.py 2>&1 | tail -n 15 | tee "$OUT/test_overhead.log"
timeout 150 python3 thunder/benchmarks/cache_entries.py --device cuda --json "$OUT/cache_entries.json" 2>&1 | grep -v -i warn | tee "$OUT/cache_entries.log"
timeout 120 python3 benchmarks_results/s22_scripts/shape_index_ab.py --device cuda --entries 1,2,4,16 2>&1 | grep -v -i warn | tee "$OUT/shape_index_ab_cuda.log"
timeout 90 taskset -c 5 python3 thunder/benchmarks/small_graph.py --device cuda --cases issue1657 --repeats 31 2>&1 | grep -v -i warn | tee "$OUT/small_graph_issue1657_pinned.log"
uptime | tee -a "$OUT/uptime.log"
