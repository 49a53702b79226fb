# Session 14, device call A (nvidia-h200): test_overhead.py whole (with the new CUDA variants of
# test_module_call_honours_backward_hooks), then that test with FastThunderModule.__call__'s two backward-hook
# checks removed, which must fail on every variant.
set -uo pipefail
source .device/setup.sh >/dev/null 2>&1 || exit 1
site=$(python3 -c "import thunder, os; print(os.path.dirname(thunder.__file__))")
ln -sfn "$PWD/thunder/fastpath" "$site/fastpath"
echo "== test_overhead.py"
python3 -m pytest -q -p no:cacheprovider -W ignore thunder/tests/test_overhead.py 2>&1 | tail -n 4 | tee "$OUT/test_overhead.log"
echo "== mutant: backward hooks ignored by FastThunderModule.__call__"
sed -i '/d\["_backward_pre_hooks"\]/d; /d\["_backward_hooks"\]/d' thunder/fastpath/module.py
git diff --stat thunder/fastpath/module.py | tee "$OUT/mutant.log"
python3 -m pytest -q -p no:cacheprovider -W ignore thunder/tests/test_overhead.py -k backward_hooks -rf 2>&1 | grep -E "^FAILED|passed|failed" | tee -a "$OUT/mutant.log"
git checkout thunder/fastpath/module.py
