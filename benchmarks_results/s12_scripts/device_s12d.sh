# Session 12, device call D (nvidia-h200): test_overhead.py whole at this commit (with the new CUDA variants of
# test_computations_keep_grad_mode_only_on_the_guards_layout), then that test against a broken grad rule (views
# ignored: outputs_are_new replaced by True in _grad_free_on_layout), which must fail on every variant.
set -uo pipefail
source .device/setup.sh >/dev/null 2>&1 || exit 1
site=$(python3 -c "import thunder, os; print(os.path.dirname(thunder.__file__))")
ln -sfn "$PWD/thunder/fastpath" "$site/fastpath"
echo "== test_overhead.py"
python3 -m pytest -q -p no:cacheprovider -W ignore thunder/tests/test_overhead.py 2>&1 | tail -n 4 | tee "$OUT/test_overhead.log"
echo "== mutant: views ignored by the grad rule"
sed -i 's/        and outputs_are_new(tree_leaves(outputs), tree_leaves((args, kwargs)))/        and True/' thunder/fastpath/cache_hit.py
grep -c "        and True$" thunder/fastpath/cache_hit.py
python3 -m pytest -q -p no:cacheprovider -W ignore thunder/tests/test_overhead.py -k keep_grad_mode_only -rf 2>&1 | grep -E "^FAILED|passed|failed" | tee "$OUT/mutant.log"
git checkout thunder/fastpath/cache_hit.py
