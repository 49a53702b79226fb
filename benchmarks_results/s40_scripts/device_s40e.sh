# Session 40, device call E (nvidia-h200, cold). Call A's full table gave growth figures far from session 38's
# (params_128's computation took 200.7 µs against 119.8 there): measure the growth cases again, alone, after the
# guard fix. (1) small_graph.py on inputs_16, inputs_64, params_32 and params_128 (31 repeats, pinned to core 2);
# (2) hit_breakdown.py's guard and computation rows for the same cases (minima), as in gpu_run.sh's measure phase.
# Carry [".device"]; writes to $OUT.
set -uo pipefail
source .ci/device_prelude.sh >/dev/null 2>&1 || exit 1
{ sha1sum thunder/fastpath/*.py thunder/benchmarks/*.py; uptime; } 2>&1 | tee "$OUT/versions_and_uptime.log"
timeout 200 taskset -c 2 python3 thunder/benchmarks/small_graph.py --device cuda --cases inputs_16,inputs_64,params_32,params_128 \
  --repeats 31 2>&1 | grep -v -i warn > "$OUT/growth_cases.log"
uptime | tee -a "$OUT/versions_and_uptime.log"
timeout 150 taskset -c 2 python3 thunder/benchmarks/hit_breakdown.py --device cuda --number 1000 --repeats 7 \
  --cases inputs_16,inputs_64,params_32,params_128 2>&1 | grep -v -i warn > "$OUT/breakdown_scaling.log"
uptime | tee -a "$OUT/versions_and_uptime.log"
grep -E "^(inputs|params)_[0-9]+ +(eager|fast|computation) " "$OUT/growth_cases.log"
grep -E "^==|^guard |^computation " "$OUT/breakdown_scaling.log"
