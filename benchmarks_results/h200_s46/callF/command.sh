# Session 46, device call F (nvidia-h200): model_hit_gap.py at small_models.py's sizes on CUDA, pinned to core 2:
# where a one-token hit of LLaMA-2 and nanoGPT spends what its computation does not (call E: 102-115 and 55 µs).
# Carry [".device"]; writes to $OUT.
set -uo pipefail
source .ci/device_prelude.sh >/dev/null 2>&1 || exit 1
cp "$0" "$OUT/command.sh" 2>/dev/null
{ git log -1 --format=%H 2>/dev/null; sha1sum thunder/fastpath/*.py; uptime; } 2>&1 | tee "$OUT/versions_and_uptime.log"
timeout 170 taskset -c 2 python3 benchmarks_results/s46_scripts/model_hit_gap.py 20 11 cuda 2>&1 | grep -v -i warn \
  | tee "$OUT/model_hit_gap_cuda.log"
uptime | tee -a "$OUT/versions_and_uptime.log"
