# Session 21, device call A (nvidia-h200): test_overhead.py whole on CUDA (with the cheaper guard miss and its new
# test), then cache_entries.py on CUDA (hits of older cache entries, first calls), then the guard-miss A/B on this
# host's CPU. Carry [".device"]; writes to $OUT.
set -uo pipefail
source .device/setup.sh >/dev/null 2>&1 || exit 1
site=$(python3 -c "import thunder, os; print(os.path.dirname(thunder.__file__))")
ln -sfn "$PWD/thunder/fastpath" "$site/fastpath"
export PYTHONUNBUFFERED=1
uptime | tee "$OUT/uptime.log"
timeout 330 python3 -m pytest -q -p no:cacheprovider -W ignore thunder/tests/test_overhead.py 2>&1 | tail -n 15 | tee "$OUT/test_overhead.log"
timeout 200 python3 thunder/benchmarks/cache_entries.py --device cuda --json "$OUT/cache_entries.json" 2>&1 | grep -v -i warn | tee "$OUT/cache_entries.log"
timeout 60 python3 benchmarks_results/s21_scripts/miss_cost_ab.py 2>&1 | grep -v -i warn | tee "$OUT/miss_cost_ab_host_cpu.log"
uptime | tee -a "$OUT/uptime.log"
