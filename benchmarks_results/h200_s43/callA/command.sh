# Session 43, device call A (nvidia-h200). After hits under autocast and the region's identity check for one tensor in
# two input places: (1) test_overhead.py whole (-n 8 on cores 0-7; new CUDA forms: test_hits_under_autocast,
# test_training_under_autocast, test_nvfuser_region_gets_one_tensor_in_two_places; the tied-weights test's
# self-attention part runs on CUDA for the first time); (2) region_repeats.py on core 2; (3) small_graph.py --device
# cuda for issue1657, linear_autocast and the RMSNorm cases on core 2; (4) lightning-thunder's test_autocast -k cuda,
# fast path on against off. Carry [".device"]; writes to $OUT.
set -uo pipefail
source .ci/device_prelude.sh >/dev/null 2>&1 || exit 1
cp "$0" "$OUT/command.sh" 2>/dev/null
{ sha1sum thunder/fastpath/*.py thunder/tests/test_overhead.py thunder/benchmarks/*.py; nproc; uptime; } 2>&1 | tee "$OUT/versions_and_uptime.log"
timeout 230 taskset -c 0-7 python3 -m pytest -n 8 -q -p no:cacheprovider -W ignore -rfs thunder/tests/test_overhead.py \
  > "$OUT/test_overhead.log" 2>&1
echo "test_overhead exit $?" | tee -a "$OUT/test_overhead.log"
tail -n 3 "$OUT/test_overhead.log"
timeout 90 taskset -c 2 python3 benchmarks_results/s43_scripts/region_repeats.py 2>&1 | grep -v -i warn | tee "$OUT/region_repeats.log"
timeout 130 taskset -c 2 python3 thunder/benchmarks/small_graph.py --device cuda --cases issue1657,linear_autocast,rmsnorm \
  --json "$OUT/small_graph_cuda.json" 2>&1 | grep -v -i warn | tee "$OUT/small_graph_cuda.log"
uptime | tee -a "$OUT/versions_and_uptime.log"
PYTEST_ADDOPTS="-n 7 -k cuda" SHIPPED_LOGS="$OUT/shipped_autocast" PY=$(command -v python3) timeout 120 \
  bash .ci/compare_shipped_suites thunder.tests.test_autocast 2>&1 | tee "$OUT/shipped_autocast.log"
