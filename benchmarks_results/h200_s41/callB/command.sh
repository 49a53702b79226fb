# Session 41, device call B (nvidia-h200, cold). Timing only, nothing else running, pinned to core 2; runtime code as
# in call A (the hit path unchanged since dc9fc5b). Session 40's growth figures came from a slower host (params_128's
# computation 196.9-200.7 us against 119.8 in session 38): measure again.
# (1) The full CUDA table (small_graph.py). (2) #1657 alone three times (31 repeats, as in sessions 30-40).
# (3) The growth cases alone (31 repeats) and hit_breakdown.py's guard and computation rows for them, as in
# session 40's call E.
# Carry [".device"]; writes to $OUT.
set -uo pipefail
source .ci/device_prelude.sh >/dev/null 2>&1 || exit 1
{ sha1sum thunder/fastpath/*.py thunder/benchmarks/*.py; nproc; uptime; } 2>&1 | tee "$OUT/versions_and_uptime.log"
timeout 200 taskset -c 2 python3 thunder/benchmarks/small_graph.py --device cuda 2>&1 | grep -v -i warn > "$OUT/cuda_all.log"
uptime | tee -a "$OUT/versions_and_uptime.log"
for i in 1 2 3; do
  timeout 50 taskset -c 2 python3 thunder/benchmarks/small_graph.py --device cuda --cases issue1657 --repeats 31 \
    2>&1 | grep -v -i warn | sed "s/^/run $i | /" >> "$OUT/issue1657_only.log"
done
uptime | tee -a "$OUT/versions_and_uptime.log"
timeout 150 taskset -c 2 python3 thunder/benchmarks/small_graph.py --device cuda --cases inputs_16,inputs_64,params_32,params_128 \
  --repeats 31 2>&1 | grep -v -i warn > "$OUT/growth_cases.log"
uptime | tee -a "$OUT/versions_and_uptime.log"
timeout 120 taskset -c 2 python3 thunder/benchmarks/hit_breakdown.py --device cuda --number 1000 --repeats 7 \
  --cases inputs_16,inputs_64,params_32,params_128 2>&1 | grep -v -i warn > "$OUT/breakdown_scaling.log"
uptime | tee -a "$OUT/versions_and_uptime.log"
cat "$OUT/cuda_all.log"
grep -E "^run . \| issue1657 .*(eager|fast|fec|computation)" "$OUT/issue1657_only.log"
grep -E "^(inputs|params)_[0-9]+ +(eager|fast|computation) " "$OUT/growth_cases.log"
grep -E "^==|^guard |^computation " "$OUT/breakdown_scaling.log"
