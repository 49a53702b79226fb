# Session 33, device call D (nvidia-h200): the reference-cycle fix on CUDA, in the little device time left. Call C's
# test_jit_nn_module_cycle_leak failed only with the fast path on: the generated hit functions and the fast path's
# state made reference cycles that kept a dropped jitted module alive until the cycle collector ran. Runs, at once:
# that shipped test and test_jit_compile_data_cycle_leak with the fast path on and off; test_overhead.py's new
# test_jitted_callables_are_freed_without_the_cycle_collector_like_upstream (its CUDA parameters: torch executor
# and nvFuser regions) and the pinned nvFuser hit source (TestGeneratedRegionHit), which the fix changed.
# Carry [".device"]; writes to $OUT.
set -uo pipefail
source .device/setup.sh >/dev/null 2>&1 || exit 1
site=$(python3 -c "import thunder, os; print(os.path.dirname(thunder.__file__))")
ln -sfn "$PWD/thunder/fastpath" "$site/fastpath"
export PYTHONUNBUFFERED=1
sha1sum thunder/fastpath/*.py thunder/tests/test_overhead.py | tee "$OUT/code_sha1.log"
LIMIT=${LIMIT:-100}
for mode in on off; do
  (cd "$OUT" && THUNDER_FASTPATH=$([ $mode = on ] && echo 1 || echo 0) timeout "$LIMIT" python3 -m pytest -v \
     -p no:cacheprovider -W ignore -p thunder.fastpath --pyargs thunder.tests.test_jit_general -k cycle_leak \
     > "cycle_leak_$mode.log" 2>&1) &
done
(timeout "$LIMIT" python3 -m pytest -v -p no:cacheprovider -W ignore thunder/tests/test_overhead.py \
   -k "freed_without_the_cycle_collector or TestGeneratedRegionHit" > "$OUT/test_overhead_cycles.log" 2>&1) &
wait
for f in "$OUT"/*.log; do echo "== $(basename "$f")"; grep -E "PASSED|FAILED|SKIPPED|ERROR|passed|failed" "$f" | tail -n 6; done
