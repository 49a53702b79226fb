# Session 46, device call C (nvidia-h200). Timing only, nothing else running, pinned to core 2. The full CUDA table
# was last run in session 41 (call B); sessions 42-45 changed the guards (tied names, autocast, layouts) since.
# (1) The full CUDA table (small_graph.py). (2) #1657 alone three times (31 repeats, as in sessions 30-45).
# (3) The growth cases alone (31 repeats), as in session 41's call B.
# Carry [".device"]; writes to $OUT.
set -uo pipefail
source .ci/device_prelude.sh >/dev/null 2>&1 || exit 1
cp "$0" "$OUT/command.sh" 2>/dev/null
{ git log -1 --format=%H 2>/dev/null; sha1sum thunder/fastpath/*.py thunder/benchmarks/*.py; nproc; uptime; } 2>&1 | tee "$OUT/versions_and_uptime.log"
timeout 220 taskset -c 2 python3 thunder/benchmarks/small_graph.py --device cuda --json "$OUT/cuda_all.json" 2>&1 \
  | grep -v -i warn > "$OUT/cuda_all.log"
uptime | tee -a "$OUT/versions_and_uptime.log"
for i in 1 2 3; do
  timeout 50 taskset -c 2 python3 thunder/benchmarks/small_graph.py --device cuda --cases issue1657 --repeats 31 \
    2>&1 | grep -v -i warn | sed "s/^/run $i | /" >> "$OUT/issue1657_only.log"
done
uptime | tee -a "$OUT/versions_and_uptime.log"
timeout 150 taskset -c 2 python3 thunder/benchmarks/small_graph.py --device cuda --cases inputs_16,inputs_64,params_32,params_128 \
  --repeats 31 2>&1 | grep -v -i warn > "$OUT/growth_cases.log"
uptime | tee -a "$OUT/versions_and_uptime.log"
cat "$OUT/cuda_all.log"
grep -E "^run . \| issue1657 .*(eager|fast|fec|computation)" "$OUT/issue1657_only.log"
grep -E "^(inputs|params)_[0-9]+ +(eager|fast|computation) " "$OUT/growth_cases.log"
