# Session 35, device call G (nvidia-h200): after the final read's refactor (the option and nv_skip_cache tests use the
# file's nvfuser_pair and layouts_4x6 helpers), the new nvFuser tests again, then the options test against its
# mutant (no options bound to the executor). Carry [".device"]; writes to $OUT.
set -uo pipefail
source .device/setup.sh >/dev/null 2>&1 || exit 1
site=$(python3 -c "import thunder, os; print(os.path.dirname(thunder.__file__))")
ln -sfn "$PWD/thunder/fastpath" "$site/fastpath"
sha1sum thunder/fastpath/*.py thunder/tests/test_overhead.py | tee "$OUT/code_sha1.log"
K="options or skip_cache or fake_inputs"
timeout 120 python3 -m pytest -v -p no:cacheprovider -W ignore thunder/tests/test_overhead.py -k "$K" 2>&1 \
  | grep -E "PASSED|FAILED|SKIPPED|ERROR|passed|failed" | tee "$OUT/new_tests.log"
cp thunder/fastpath/nvfuser.py /tmp/nvfuser.py.orig
sed -i 's/        if up.enable_options or up.disable_options:/        if False:/' thunder/fastpath/nvfuser.py
{ echo "== mutant: no options bound to the executor ($(diff /tmp/nvfuser.py.orig thunder/fastpath/nvfuser.py | grep -c '^>') line changed)"
  timeout 100 python3 -m pytest -q -p no:cacheprovider -W ignore thunder/tests/test_overhead.py \
    -k "test_nvfuser_options_reach_the_executor_like_upstream" 2>&1 | grep -E "^E  |passed|failed" | head -n 6
} | tee "$OUT/mutant_options.log"
cp /tmp/nvfuser.py.orig thunder/fastpath/nvfuser.py
