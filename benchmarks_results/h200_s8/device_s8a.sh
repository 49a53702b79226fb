# Session 8, device call A: test_overhead (CUDA included), the layout-shortcut mutants, the A/B of the hit function.
set -uo pipefail
source .device/setup.sh || exit 1
site=$(python3 -c "import thunder, os; print(os.path.dirname(thunder.__file__))")
ln -sfn "$PWD/thunder/fastpath" "$site/fastpath"
date; echo "== test_overhead"
python3 -m pytest -q -p no:cacheprovider -W ignore thunder/tests/test_overhead.py 2>&1 | tail -n 15 | tee "$OUT/test_overhead.log"
date; echo "== mutants"
for m in strides_ignored identity_ignored no_shortcut none; do
  echo "== mutant: $m"; python3 benchmarks_results/s8_scripts/mutants.py $m 2>&1 | grep -E "^FAILED|passed|failed|error" | cut -c1-200
done 2>&1 | tee "$OUT/mutants.log"
date; echo "== A/B"
N=5000 R=15 python3 benchmarks_results/s8_scripts/ab_layout_shortcut.py cuda issue1657,two_8x8,rmsnorm_1x2880,inputs_16 2>&1 | grep -v -i warn > "$OUT/ab.log"; grep -B3 -A5 "^==" "$OUT/ab.log" | grep -v "^def\|^    " 
date
