# Session 27, device call D, after GlobalStateGuard was dropped (8623d9c): test_overhead.py whole on CUDA (its pinned
# region hit has the new state lines), then alone, pinned to one core, #1657 and RMSNorm twice (small_graph.py).
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
for run in 1 2; do
  timeout 80 taskset -c 5 python3 thunder/benchmarks/small_graph.py --device cuda --cases issue1657,rmsnorm \
    --repeats 31 2>&1 | grep -v -i warn | tee "$OUT/small_graph_pinned_$run.log"
done
uptime | tee -a "$OUT/uptime.log"
