# Session 45, device call A (nvidia-h200). No runtime change this session; this call adds:
# (1) session 11's differential search with its tensors on CUDA (nvFuser regions), not run since session 13 although
#     the region hit changed since (single-region call, grad mode left alone, layout check skipped, first layout
#     kept, autocast entries): seed 45, 60 examples; (2) the same with FUZZ_AUTOCAST=1 (new this session: autocast
#     off or bfloat16 per call, and a matmul function); (3) the training case of session 44's autocast A/B, which
#     session 44's call D cut short; (4) small_graph.py --device cuda for issue1657.
# Carry [".device"]; writes to $OUT.
set -uo pipefail
source .ci/device_prelude.sh >/dev/null 2>&1 || exit 1
cp "$0" "$OUT/command.sh" 2>/dev/null
{ git log -1 --format=%H 2>/dev/null; sha1sum thunder/fastpath/*.py benchmarks_results/s11_scripts/fuzz_differential.py; nproc; uptime; } 2>&1 | tee "$OUT/versions_and_uptime.log"
fuzz=benchmarks_results/s13_scripts/fuzz_differential_cuda.py
timeout 130 taskset -c 0-3 python3 $fuzz 60 45 cuda 2>&1 | grep -v -i warn > "$OUT/fuzz_cuda_seed45.log"
echo "fuzz exit $?"; grep -E "failed|examples,|FusionRegions made" "$OUT/fuzz_cuda_seed45.log" | tail -n 3
tail -n 1 "$OUT/fuzz_cuda_seed45.log"
FUZZ_AUTOCAST=1 timeout 150 taskset -c 0-3 python3 $fuzz 60 45 cuda 2>&1 | grep -v -i warn > "$OUT/fuzz_cuda_autocast_seed45.log"
echo "fuzz autocast exit $?"; grep -E "failed|examples,|FusionRegions made" "$OUT/fuzz_cuda_autocast_seed45.log" | tail -n 3
tail -n 1 "$OUT/fuzz_cuda_autocast_seed45.log"
timeout 150 taskset -c 2 python3 benchmarks_results/s44_scripts/autocast_switch_ab.py cuda 15 mlp_train_step 2>&1 \
  | grep -v -i warn | tee "$OUT/autocast_switch_ab_train_cuda.log"
timeout 70 taskset -c 2 python3 thunder/benchmarks/small_graph.py --device cuda --cases issue1657 \
  --json "$OUT/small_graph_cuda.json" 2>&1 | grep -v -i warn | tee "$OUT/small_graph_cuda.log"
uptime | tee -a "$OUT/versions_and_uptime.log"
