# Session 44, device call E (nvidia-h200). count_region_calls.py cuda: FusionRegion calls per whole call, per hit
# function call and per computation call of nanoGPT one token (call C's cProfile counted twice as many region frames
# in whole calls as in computation calls). Carry [".device"]; writes to $OUT.
set -uo pipefail
source .ci/device_prelude.sh >/dev/null 2>&1 || exit 1
cp "$0" "$OUT/command.sh" 2>/dev/null
sha1sum thunder/fastpath/*.py | tee "$OUT/versions.log"
timeout 200 taskset -c 2 python3 benchmarks_results/s44_scripts/count_region_calls.py cuda 2>&1 | grep -v -i warn \
  | tee "$OUT/count_region_calls_cuda.log"
