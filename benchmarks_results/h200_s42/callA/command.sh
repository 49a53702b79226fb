# Session 42, device call A (nvidia-h200). After the guard change for one tensor under two names (tied weights):
# (1) test_overhead.py whole (pytest-xdist -n 8 on cores 0-7; the new test has two CUDA forms);
# (2) the nvFuser regions of the two small language models (does any keep upstream's per-call lookup?);
# (3) the guard before and after the change on the tied and untied models' entries (CUDA tensors), pinned to core 2;
# (4) small_models.py on CUDA (new: eager, upstream, fast and computation for the two models), pinned to core 2.
# Carry [".device"]; writes to $OUT.
set -uo pipefail
source .ci/device_prelude.sh >/dev/null 2>&1 || exit 1
{ sha1sum thunder/fastpath/*.py thunder/tests/test_overhead.py thunder/benchmarks/*.py; nproc; uptime; } 2>&1 | tee "$OUT/versions_and_uptime.log"
timeout 200 taskset -c 0-7 python3 -m pytest -n 8 -q -p no:cacheprovider -W ignore -rfs thunder/tests/test_overhead.py \
  > "$OUT/test_overhead.log" 2>&1
echo "test_overhead exit $?" | tee -a "$OUT/test_overhead.log"
tail -n 3 "$OUT/test_overhead.log"
timeout 120 python3 benchmarks_results/s42_scripts/regions_of_models.py 2>&1 | grep -v -i warn | tee "$OUT/regions_of_models.log"
timeout 120 taskset -c 2 python3 benchmarks_results/s42_scripts/tied_guard_ab.py --device cuda 2>&1 | grep -v -i warn \
  | tee "$OUT/tied_guard_ab_cuda.log"
uptime | tee -a "$OUT/versions_and_uptime.log"
timeout 200 taskset -c 2 python3 thunder/benchmarks/small_models.py --device cuda 2>&1 | grep -v -i warn \
  | tee "$OUT/small_models_cuda.log"
uptime | tee -a "$OUT/versions_and_uptime.log"
