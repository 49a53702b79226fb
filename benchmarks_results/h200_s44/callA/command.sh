# Session 44, device call A (nvidia-h200). After hits of entries made under autocast make upstream's no_autocast
# switches themselves: (1) test_overhead.py whole (-n 8 on cores 0-7; the CUDA forms of test_hits_under_autocast and
# test_training_under_autocast); (2) autocast_switch_ab.py cuda (the hit before and after, side by side) on core 2;
# (3) small_graph.py --device cuda for issue1657 and linear_autocast on core 2. Carry [".device"]; writes to $OUT.
set -uo pipefail
source .ci/device_prelude.sh >/dev/null 2>&1 || exit 1
cp "$0" "$OUT/command.sh" 2>/dev/null
{ sha1sum thunder/fastpath/*.py thunder/tests/test_overhead.py thunder/benchmarks/*.py; nproc; uptime; } 2>&1 | tee "$OUT/versions_and_uptime.log"
timeout 280 taskset -c 0-7 python3 -m pytest -n 8 -q -p no:cacheprovider -W ignore -rfs thunder/tests/test_overhead.py \
  > "$OUT/test_overhead.log" 2>&1
echo "test_overhead exit $?" | tee -a "$OUT/test_overhead.log"
tail -n 3 "$OUT/test_overhead.log"
timeout 100 taskset -c 2 python3 benchmarks_results/s44_scripts/autocast_switch_ab.py cuda 15 2>&1 | grep -v -i warn \
  | tee "$OUT/autocast_switch_ab_cuda.log"
timeout 110 taskset -c 2 python3 thunder/benchmarks/small_graph.py --device cuda --cases issue1657,linear_autocast \
  --json "$OUT/small_graph_cuda.json" 2>&1 | grep -v -i warn | tee "$OUT/small_graph_cuda.log"
uptime | tee -a "$OUT/versions_and_uptime.log"
