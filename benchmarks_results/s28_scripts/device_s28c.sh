# Session 28, device call C: test_overhead.py whole on CUDA at the final test file (efdd30d merged two tests into
# one after session 27's last device run). Carry [".device"]; writes to $OUT.
set -uo pipefail
source .device/setup.sh >/dev/null 2>&1 || exit 1
site=$(python3 -c "import thunder, os; print(os.path.dirname(thunder.__file__))")
ln -sfn "$PWD/thunder/fastpath" "$site/fastpath"
export PYTHONUNBUFFERED=1
git log --oneline -1 2>/dev/null | tee "$OUT/commit.log"
timeout 400 python3 -m pytest -q -p no:cacheprovider -W ignore -rs thunder/tests/test_overhead.py 2>&1 \
  | tail -n 30 > "$OUT/test_overhead_cuda.log"
tail -n 3 "$OUT/test_overhead_cuda.log"
