# Session 44, device call D (nvidia-h200). The kept form of this session's change (hits of entries made under autocast
# call upstream's no_autocast layer, without the no_grad decorator; call A ran the first form, c74aef7):
# (1) test_overhead.py -k "autocast or nvfuser or region" (-n 8 on cores 0-7); (2) autocast_switch_ab.py cuda on
# core 2; (3) small_graph.py --device cuda for issue1657 and linear_autocast on core 2; (4) lightning-thunder's
# test_autocast -k cuda, fast path on against off; (5) small_models.py --autocast for nanogpt_1tok on core 2.
# Carry [".device"]; writes to $OUT.
set -uo pipefail
source .ci/device_prelude.sh >/dev/null 2>&1 || exit 1
cp "$0" "$OUT/command.sh" 2>/dev/null
{ sha1sum thunder/fastpath/*.py thunder/tests/test_overhead.py thunder/benchmarks/*.py; nproc; uptime; } 2>&1 | tee "$OUT/versions_and_uptime.log"
timeout 150 taskset -c 0-7 python3 -m pytest -n 8 -q -p no:cacheprovider -W ignore -rfs thunder/tests/test_overhead.py \
  -k "autocast or nvfuser or region" > "$OUT/test_overhead_k.log" 2>&1
echo "test_overhead exit $?" | tee -a "$OUT/test_overhead_k.log"
tail -n 3 "$OUT/test_overhead_k.log"
timeout 80 taskset -c 2 python3 benchmarks_results/s44_scripts/autocast_switch_ab.py cuda 15 2>&1 | grep -v -i warn \
  | tee "$OUT/autocast_switch_ab_cuda.log"
timeout 100 taskset -c 2 python3 thunder/benchmarks/small_graph.py --device cuda --cases issue1657,linear_autocast \
  --json "$OUT/small_graph_cuda.json" 2>&1 | grep -v -i warn | tee "$OUT/small_graph_cuda.log"
PYTEST_ADDOPTS="-n 7 -k cuda" SHIPPED_LOGS="$OUT/shipped_autocast" PY=$(command -v python3) timeout 100 \
  bash .ci/compare_shipped_suites thunder.tests.test_autocast 2>&1 | tee "$OUT/shipped_autocast.log"
timeout 150 taskset -c 2 python3 thunder/benchmarks/small_models.py --device cuda --autocast --cases nanogpt_1tok \
  --json "$OUT/small_models_autocast_cuda.json" 2>&1 | grep -v -i warn | tail -n 12 | tee "$OUT/small_models_autocast_cuda.log"
uptime | tee -a "$OUT/versions_and_uptime.log"
