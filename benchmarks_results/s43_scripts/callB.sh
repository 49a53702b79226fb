# Session 43, device call B (nvidia-h200). After the guard's alias fast form and the fixed region lookup of
# test_nvfuser_region_gets_one_tensor_in_two_places (call A found no region through computation_fn's globals):
# (1) test_overhead.py whole (-n 8 on cores 0-7); (2) region_repeats.py on core 2; (3) alias_guard_ab.py --device cuda
# on core 2; (4) small_models.py --device cuda --autocast for the two 1-token cases on core 2.
# Carry [".device"]; writes to $OUT.
set -uo pipefail
source .ci/device_prelude.sh >/dev/null 2>&1 || exit 1
cp "$0" "$OUT/command.sh" 2>/dev/null
{ sha1sum thunder/fastpath/*.py thunder/tests/test_overhead.py thunder/benchmarks/*.py; nproc; uptime; } 2>&1 | tee "$OUT/versions_and_uptime.log"
timeout 200 taskset -c 0-7 python3 -m pytest -n 8 -q -p no:cacheprovider -W ignore -rfs thunder/tests/test_overhead.py \
  > "$OUT/test_overhead.log" 2>&1
echo "test_overhead exit $?" | tee -a "$OUT/test_overhead.log"
tail -n 3 "$OUT/test_overhead.log"
timeout 60 taskset -c 2 python3 benchmarks_results/s43_scripts/region_repeats.py 2>&1 | grep -v -i warn | tee "$OUT/region_repeats.log"
timeout 60 taskset -c 2 python3 benchmarks_results/s43_scripts/alias_guard_ab.py --device cuda 2>&1 | grep -v -i warn \
  | tee "$OUT/alias_guard_ab_cuda.log"
uptime | tee -a "$OUT/versions_and_uptime.log"
timeout 240 taskset -c 2 python3 thunder/benchmarks/small_models.py --device cuda --autocast --cases llama2_1tok,nanogpt_1tok \
  --json "$OUT/small_models_autocast_cuda.json" 2>&1 | grep -v -i warn | tee "$OUT/small_models_autocast_cuda.log"
uptime | tee -a "$OUT/versions_and_uptime.log"
