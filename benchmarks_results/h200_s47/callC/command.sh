# Session 47, device call C (nvidia-h200): model_guard_in_place.py at small_models.py's sizes on CUDA, pinned to one
# core, twice: LLaMA-2's and nanoGPT's one-token hit gap split into the guard alone, the guard after the computation
# and the rest (session 46's model_hit_gap.py could not read LLaMA-2).
# Carry [".device"]; writes to $OUT.
set -uo pipefail
source .ci/device_prelude.sh >/dev/null 2>&1 || exit 1
cp "$0" "$OUT/command.sh" 2>/dev/null
{ git log -1 --format=%H 2>/dev/null; sha1sum thunder/fastpath/*.py; uptime; } 2>&1 | tee "$OUT/versions_and_uptime.log"
for i in 1 2; do
  timeout 200 taskset -c 2 python3 benchmarks_results/s47_scripts/model_guard_in_place.py 20 15 cuda 2>&1 \
    | grep -v -i "warn" | tee "$OUT/model_guard_in_place_cuda_$i.log"
done
uptime | tee -a "$OUT/versions_and_uptime.log"
