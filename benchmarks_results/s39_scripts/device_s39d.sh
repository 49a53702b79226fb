# Session 39, device call D (nvidia-h200, warm after calls A-C, which ran test_ops comparisons). Runtime code as at
# dc9fc5b. #1657 alone five times (31 repeats, pinned to core 2, as in sessions 30-38), nothing else running.
# Carry [".device"]; writes to $OUT.
set -uo pipefail
source .ci/device_prelude.sh >/dev/null 2>&1 || exit 1
{ sha1sum thunder/fastpath/*.py thunder/benchmarks/small_graph.py; nproc; uptime; } 2>&1 | tee "$OUT/versions_and_uptime.log"
for i in 1 2 3 4 5; do
  timeout 70 taskset -c 2 python3 thunder/benchmarks/small_graph.py --device cuda --cases issue1657 --repeats 31 \
    2>&1 | grep -v -i warn > "$OUT/issue1657_only_$i.log"
done
uptime | tee -a "$OUT/versions_and_uptime.log"
grep -h -E "^issue1657 .*(eager|fast|fec|computation)" "$OUT"/issue1657_only_*.log
