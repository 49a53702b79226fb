# Session 45, device call B (nvidia-h200, the machine of call A, still warm): call A's training A/B and #1657 rows
# came from a host one to five minutes after boot, with medians far above minima; the same again, twice each.
# Carry [".device"]; writes to $OUT.
set -uo pipefail
source .ci/device_prelude.sh >/dev/null 2>&1 || exit 1
cp "$0" "$OUT/command.sh" 2>/dev/null
{ sha1sum thunder/fastpath/*.py; uptime; } 2>&1 | tee "$OUT/versions_and_uptime.log"
for run in 1 2; do
  timeout 100 taskset -c 2 python3 benchmarks_results/s44_scripts/autocast_switch_ab.py cuda 15 mlp_train_step 2>&1 \
    | grep -v -i warn | tee "$OUT/autocast_switch_ab_train_cuda_$run.log"
  timeout 60 taskset -c 2 python3 thunder/benchmarks/small_graph.py --device cuda --cases issue1657 \
    --json "$OUT/small_graph_cuda_$run.json" 2>&1 | grep -v -i warn | tee "$OUT/small_graph_cuda_$run.log"
done
uptime | tee -a "$OUT/versions_and_uptime.log"
