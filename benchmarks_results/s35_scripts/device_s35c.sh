# Session 35, device call C (nvidia-h200): test_overhead.py whole with the two new nvFuser tests
# (test_nvfuser_options_reach_the_executor_like_upstream, test_nvfuser_save_fake_inputs_keeps_upstreams_wrapper),
# pytest-xdist on cores 0-11; then each new test against a mutant of thunder/fastpath/nvfuser.py, applied and
# reverted: (a) the region binds no options to the executor, (b) regions replace upstream's wrapper also when fake
# inputs are saved. Carry [".device"]; writes to $OUT.
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
grep -oE "(PASSED|FAILED|SKIPPED|ERROR) [^ ]*(options|fake_inputs)[^ ]*" "$OUT/test_overhead_cuda.log" | sort -k2
cp thunder/fastpath/nvfuser.py /tmp/nvfuser.py.orig
mutant() {  # $1: label, $2: sed expression, $3: -k filter
  cp /tmp/nvfuser.py.orig thunder/fastpath/nvfuser.py
  sed -i "$2" thunder/fastpath/nvfuser.py
  echo "== mutant: $1 ($(diff /tmp/nvfuser.py.orig thunder/fastpath/nvfuser.py | grep -c '^>') line changed)"
  timeout 120 python3 -m pytest -q -p no:cacheprovider -W ignore thunder/tests/test_overhead.py -k "$3" 2>&1 \
    | grep -E "^E  |passed|failed" | head -n 5
}
{
mutant "no options bound to the executor" 's/        if up.enable_options or up.disable_options:/        if False:/' "options"
mutant "regions also when fake inputs are saved" 's/if profiling_enabled() or upstream.save_fake_inputs:/if profiling_enabled():/' "fake_inputs"
} | tee "$OUT/mutants.log"
cp /tmp/nvfuser.py.orig thunder/fastpath/nvfuser.py
