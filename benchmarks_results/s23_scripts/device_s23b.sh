# Session 23, device call B (nvidia-h200): cache_entries.py on CUDA (its new rows: the shape that changes passed
# second or by keyword), #1657 alone pinned to one core (small_graph.py, hit_breakdown.py), then lightning-thunder's
# test_nvfuser with the fast path forced on and off. Carry [".device"]; writes to $OUT.
set -uo pipefail
source .device/setup.sh >/dev/null 2>&1 || exit 1
site=$(python3 -c "import thunder, os; print(os.path.dirname(thunder.__file__))")
ln -sfn "$PWD/thunder/fastpath" "$site/fastpath"
export PYTHONUNBUFFERED=1
uptime | tee "$OUT/uptime.log"
timeout 120 python3 thunder/benchmarks/cache_entries.py --device cuda --entries 1,16 --json "$OUT/cache_entries.json" 2>&1 | grep -v -i warn | tee "$OUT/cache_entries.log"
timeout 80 taskset -c 5 python3 thunder/benchmarks/small_graph.py --device cuda --cases issue1657 --repeats 31 2>&1 | grep -v -i warn | tee "$OUT/small_graph_issue1657_pinned.log"
timeout 60 taskset -c 5 python3 thunder/benchmarks/hit_breakdown.py --device cuda --number 5000 --repeats 9 --cases issue1657 2>&1 | grep -v -i warn | tee "$OUT/breakdown_issue1657_pinned.log"
SHIPPED_TIMEOUT=250 LOG=test_nvfuser.log bash .ci/gpu_run.sh shipped
uptime | tee -a "$OUT/uptime.log"
