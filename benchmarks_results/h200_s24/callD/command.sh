# Session 24, device call D (nvidia-h200): after 06ade43 (an entry whose first call raised gets its guard), call B's
# deterministic run again: on CUDA, index_add under torch's deterministic kernels served 48 of 120 calls from guards
# against 90 without them. Then test_overhead.py's nvFuser tests. Carry [".device"]; writes to $OUT.
set -uo pipefail
source .device/setup.sh >/dev/null 2>&1 || exit 1
site=$(python3 -c "import thunder, os; print(os.path.dirname(thunder.__file__))")
ln -sfn "$PWD/thunder/fastpath" "$site/fastpath"
export PYTHONUNBUFFERED=1
git log --oneline -1 2>/dev/null | tee "$OUT/deterministic.log"
timeout 60 python3 benchmarks_results/s24_scripts/opinfo_differential.py --device cuda --deterministic \
  --ops index_add,index_put,scatter_add,scatter 2>&1 | grep -E "^(ok|DIFF|SETUP|summ)" | tee -a "$OUT/deterministic.log"
timeout 120 python3 -m pytest -q -p no:cacheprovider -W ignore thunder/tests/test_overhead.py -k "nvfuser or raise" 2>&1 \
  | tail -n 5 | tee "$OUT/test_overhead_nvfuser.log"
