# Session 44, device call C (nvidia-h200). model_hit_pieces.py cuda: nanoGPT one token with and without bfloat16
# autocast, the hit's pieces and cProfile of the whole call and of the computation (call B: fast 2004.76 against
# computation 1838.73 us under autocast; session 42 without autocast: 1100.14 against 1090.65). Core 2.
# Carry [".device"]; writes to $OUT.
set -uo pipefail
source .ci/device_prelude.sh >/dev/null 2>&1 || exit 1
cp "$0" "$OUT/command.sh" 2>/dev/null
{ sha1sum thunder/fastpath/*.py benchmarks_results/s44_scripts/model_hit_pieces.py; nproc; uptime; } 2>&1 | tee "$OUT/versions_and_uptime.log"
timeout 300 taskset -c 2 python3 benchmarks_results/s44_scripts/model_hit_pieces.py cuda 50 11 2>&1 | grep -v -i warn \
  | tee "$OUT/model_hit_pieces_cuda.log"
uptime | tee -a "$OUT/versions_and_uptime.log"
