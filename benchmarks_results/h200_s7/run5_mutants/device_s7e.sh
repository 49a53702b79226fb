source .device/setup.sh >/dev/null 2>&1 || exit 1
site=$(python3 -c "import thunder, os; print(os.path.dirname(thunder.__file__))")
ln -sfn "$PWD/thunder/fastpath" "$site/fastpath"
for m in views_count_as_new no_inline switch_always none; do
  echo "== mutant: $m"; python3 scratch/mutants.py $m 2>&1 | grep -E "passed|failed|^FAILED" | tee -a "$OUT/mutants.log"
done
