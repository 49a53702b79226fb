# Session 23, device call C (nvidia-h200): test_overhead.py whole on CUDA after the index became one attribute of the
# state (a thread never reads one index's position with another's buckets), then the index's A/B on CUDA once more.
# Carry [".device"]; writes to $OUT.
set -uo pipefail
source .device/setup.sh >/dev/null 2>&1 || exit 1
site=$(python3 -c "import thunder, os; print(os.path.dirname(thunder.__file__))")
ln -sfn "$PWD/thunder/fastpath" "$site/fastpath"
export PYTHONUNBUFFERED=1
uptime | tee "$OUT/uptime.log"
timeout 330 python3 -m pytest -q -p no:cacheprovider -W ignore thunder/tests/test_overhead.py 2>&1 | tail -n 15 | tee "$OUT/test_overhead.log"
timeout 100 python3 benchmarks_results/s23_scripts/position_index_ab.py --device cuda --entries 16 2>&1 | grep -v -i warn | tee "$OUT/position_index_ab_cuda.log"
uptime | tee -a "$OUT/uptime.log"
