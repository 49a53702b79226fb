# Session 29, device call B (nvidia-h200): the autograd connection's link tensor from torch.empty (thunder/fastpath/
# autograd.py) on CUDA. Pinned to one core first: autograd_link_ab.py (the same fast callable with upstream's
# connection and with this one, eager and upstream alongside) and small_graph.py's train_step and issue1657 rows;
# then test_overhead.py whole (its new training tests run with the torch executor and nvFuser on CUDA) on cores
# 0-7 while lightning-thunder's test_nvfuser runs with the fast path on and off on cores 8-15.
# Carry [".device"]; writes to $OUT.
set -uo pipefail
source .device/setup.sh >/dev/null 2>&1 || exit 1
site=$(python3 -c "import thunder, os; print(os.path.dirname(thunder.__file__))")
ln -sfn "$PWD/thunder/fastpath" "$site/fastpath"
export PYTHONUNBUFFERED=1
sha1sum thunder/fastpath/*.py thunder/tests/test_overhead.py | tee "$OUT/code_sha1.log"
uptime | tee "$OUT/uptime.log"
timeout 150 taskset -c 5 python3 benchmarks_results/s29_scripts/autograd_link_ab.py --device cuda --number 1000 \
  --repeats 11 2>&1 | grep -v -i warn | tee "$OUT/autograd_link_ab_cuda.log"
timeout 90 taskset -c 5 python3 thunder/benchmarks/small_graph.py --device cuda --cases train_step,issue1657 \
  --repeats 15 2>&1 | grep -v -i warn | tee "$OUT/small_graph_train_step.log"
uptime | tee -a "$OUT/uptime.log"
(timeout 330 taskset -c 0-7 python3 -m pytest -q -p no:cacheprovider -W ignore -rs thunder/tests/test_overhead.py \
  2>&1 | tail -n 30 > "$OUT/test_overhead_cuda.log") &
(SHIPPED_TIMEOUT=300 LOG=test_nvfuser.log taskset -c 8-15 bash .ci/gpu_run.sh shipped > /dev/null 2>&1) &
wait
tail -n 3 "$OUT/test_overhead_cuda.log"; tail -n 4 "$OUT/test_nvfuser.log"
