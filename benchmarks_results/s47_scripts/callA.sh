# Session 47, device call A (nvidia-h200): guard_in_place.py on the H200's host (does the guard's cost in place grow
# with the memory that the work between two guard calls touches, as on this CPU?), then #1657 alone three times.
# Carry [".device"]; writes to $OUT.
set -uo pipefail
source .ci/device_prelude.sh >/dev/null 2>&1 || exit 1
cp "$0" "$OUT/command.sh" 2>/dev/null
{ git log -1 --format=%H 2>/dev/null; sha1sum thunder/fastpath/*.py; uptime; lscpu | grep -i "model name\|cache"; } 2>&1 \
  | tee "$OUT/versions_and_uptime.log"
timeout 240 taskset -c 2 python3 benchmarks_results/s47_scripts/guard_in_place.py 200 11 cuda 2>&1 \
  | grep -v -i "warn" | tee "$OUT/guard_in_place_cuda.log"
for i in 1 2 3; do
  timeout 100 taskset -c 2 python3 thunder/benchmarks/small_graph.py --device cuda --cases issue1657 2>&1 \
    | grep -v -i "warn" | tee "$OUT/issue1657_only_$i.log"
done
uptime | tee -a "$OUT/versions_and_uptime.log"
