# Session 42, device call B (nvidia-h200). small_models.py on CUDA (call A's run of all four cases at once ran past
# its 200 s limit: each case compiles two jitted copies of its model with nvFuser, ~25 s each): one token, then 32
# tokens, pinned to core 2. Runtime code as in call A.
# Carry [".device"]; writes to $OUT.
set -uo pipefail
source .ci/device_prelude.sh >/dev/null 2>&1 || exit 1
{ sha1sum thunder/fastpath/*.py thunder/benchmarks/*.py; nproc; uptime; } 2>&1 | tee "$OUT/versions_and_uptime.log"
timeout 230 taskset -c 2 python3 thunder/benchmarks/small_models.py --device cuda --cases llama2_1tok,nanogpt_1tok \
  --json "$OUT/small_models_1tok.json" 2>&1 | grep -v -i warn | tee "$OUT/small_models_cuda_1tok.log"
uptime | tee -a "$OUT/versions_and_uptime.log"
timeout 230 taskset -c 2 python3 thunder/benchmarks/small_models.py --device cuda --cases llama2_32tok,nanogpt_32tok \
  --json "$OUT/small_models_32tok.json" 2>&1 | grep -v -i warn | tee "$OUT/small_models_cuda_32tok.log"
uptime | tee -a "$OUT/versions_and_uptime.log"
