# Session 29, device call A (nvidia-h200): small_graph.py's full CUDA table at the final code (runtime unchanged
# since session 27), pinned to one core, twice. The last full CUDA table was session 16's, before sessions 17-27
# changed the hit path. Carry [".device"]; writes to $OUT.
set -uo pipefail
source .device/setup.sh >/dev/null 2>&1 || exit 1
site=$(python3 -c "import thunder, os; print(os.path.dirname(thunder.__file__))")
ln -sfn "$PWD/thunder/fastpath" "$site/fastpath"
export PYTHONUNBUFFERED=1
sha1sum thunder/fastpath/*.py thunder/benchmarks/small_graph.py | tee "$OUT/code_sha1.log"
nproc; uptime | tee "$OUT/uptime.log"
for run in 1 2; do
  timeout 270 taskset -c 5 python3 thunder/benchmarks/small_graph.py --device cuda --json "$OUT/cuda_all_pinned_$run.json" \
    2>&1 | grep -v -i warn | tee "$OUT/cuda_all_pinned_$run.log"
  uptime | tee -a "$OUT/uptime.log"
done
