# Session 35, device call E (nvidia-h200): test_overhead.py whole with the new
# test_nvfuser_skip_cache_keeps_the_first_definition_like_upstream (pytest-xdist, 8 workers on cores 0-11); then
# that test against a mutant of nvfuser.py whose regions look a definition up for each new layout also under
# nv_skip_cache. Carry [".device"]; writes to $OUT.
set -uo pipefail
source .device/setup.sh >/dev/null 2>&1 || exit 1
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/extra .device/extra_whl/*.whl
export PYTHONPATH=/tmp/extra:$PYTHONPATH
site=$(python3 -c "import thunder, os; print(os.path.dirname(thunder.__file__))")
ln -sfn "$PWD/thunder/fastpath" "$site/fastpath"
export PYTHONUNBUFFERED=1
sha1sum thunder/fastpath/*.py thunder/tests/test_overhead.py | tee "$OUT/code_sha1.log"
timeout 300 taskset -c 0-11 python3 -m pytest -n 8 -v -p no:cacheprovider -W ignore -rfs \
   thunder/tests/test_overhead.py > "$OUT/test_overhead_cuda.log" 2>&1
echo "== test_overhead (exit $?)"; tail -n 1 "$OUT/test_overhead_cuda.log"
grep -oE "(PASSED|FAILED|SKIPPED|ERROR) [^ ]*(skip_cache|options|fake_inputs)[^ ]*" "$OUT/test_overhead_cuda.log" | sort -k2
cp thunder/fastpath/nvfuser.py /tmp/nvfuser.py.orig
sed -i 's/        if up.use_cache or self.last_used is None:/        if True:/' thunder/fastpath/nvfuser.py
{
echo "== mutant: a definition per layout under nv_skip_cache ($(diff /tmp/nvfuser.py.orig thunder/fastpath/nvfuser.py | grep -c '^>') line changed)"
timeout 120 python3 -m pytest -q -p no:cacheprovider -W ignore thunder/tests/test_overhead.py -k "skip_cache" 2>&1 \
  | grep -E "^E  |passed|failed" | head -n 8
} | tee "$OUT/mutant.log"
cp /tmp/nvfuser.py.orig thunder/fastpath/nvfuser.py
