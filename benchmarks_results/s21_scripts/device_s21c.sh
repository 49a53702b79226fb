# Session 21, device call C (nvidia-h200): small_graph.py's inference cases (RMSNorm, params_*) again after the
# fix of its warm-up (ea01fec: the warm-up had made a second, grad-mode cache entry that every timed call first
# failed). Carry [".device"]; writes to $OUT.
set -uo pipefail
source .device/setup.sh >/dev/null 2>&1 || exit 1
site=$(python3 -c "import thunder, os; print(os.path.dirname(thunder.__file__))")
ln -sfn "$PWD/thunder/fastpath" "$site/fastpath"
export PYTHONUNBUFFERED=1
uptime | tee "$OUT/uptime.log"
timeout 300 python3 thunder/benchmarks/small_graph.py --device cuda --cases rmsnorm,params --json "$OUT/small_graph_inference.json" 2>&1 | grep -v -i warn | tee "$OUT/small_graph_inference.log"
uptime | tee -a "$OUT/uptime.log"
