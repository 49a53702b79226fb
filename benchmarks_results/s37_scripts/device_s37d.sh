# Session 37, device call D (nvidia-h200, warm after call C): the full CUDA table (small_graph.py, pinned to core 2,
# nothing else running), then #1657 alone once more, for the targets' record. Runtime code as in calls A-C.
# Carry [".device"]; writes to $OUT.
set -uo pipefail
source .ci/device_prelude.sh >/dev/null 2>&1 || exit 1
{ sha1sum thunder/fastpath/*.py thunder/benchmarks/small_graph.py; uptime; } 2>&1 | tee "$OUT/versions_and_uptime.log"
timeout 300 taskset -c 2 python3 thunder/benchmarks/small_graph.py --device cuda 2>&1 | grep -v -i warn > "$OUT/cuda_all.log"
uptime | tee -a "$OUT/versions_and_uptime.log"
timeout 60 taskset -c 2 python3 thunder/benchmarks/small_graph.py --device cuda --cases issue1657 --repeats 31 \
  2>&1 | grep -v -i warn > "$OUT/issue1657_only_4.log"
uptime | tee -a "$OUT/versions_and_uptime.log"
cat "$OUT/cuda_all.log"; grep -h -E "^issue1657 .*(eager|fast|fec|computation)" "$OUT/issue1657_only_4.log"
