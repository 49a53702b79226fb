# Session 16, device call A (nvidia-h200): the current code (runtime as at d02b634) on the GPU once more:
# test_overhead.py whole (its CUDA tests do not run in CI), then small_graph.py's full CUDA table, pinned to one core.
set -uo pipefail
source .device/setup.sh >/dev/null 2>&1 || exit 1
site=$(python3 -c "import thunder, os; print(os.path.dirname(thunder.__file__))")
ln -sfn "$PWD/thunder/fastpath" "$site/fastpath"
export PYTHONUNBUFFERED=1
nproc; uptime | tee "$OUT/uptime.log"
echo "== test_overhead.py"
python3 -m pytest -q -p no:cacheprovider -W ignore thunder/tests/test_overhead.py 2>&1 | tail -n 4 | tee "$OUT/test_overhead.log"
echo "== small_graph.py --device cuda (pinned)"
taskset -c 5 python3 thunder/benchmarks/small_graph.py --device cuda --json "$OUT/cuda_all_pinned.json" 2>&1 | grep -v -i warn | tee "$OUT/cuda_all_pinned.log"
uptime | tee -a "$OUT/uptime.log"
