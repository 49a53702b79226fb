# Session 31, device call A (nvidia-h200): the tests of lightning-thunder's thunder.tests.test_grad -k cuda that
# session 30's call D did not finish in both modes (h200_s30/callD/both.txt lists the 550 it compared; the plugin
# deselect_finished.py leaves those out). Fast path on (cores 0-7) and off (cores 8-15) at once, each under
# pytest-xdist with 7 workers and stopped after LIMIT s; per-test outcomes come from -v lines, as in device_s30d.sh.
# Needs fdm, pytest-xdist and execnet wheels in .device/extra_whl (pip download --no-deps, on this machine).
# Carry [".device"]; writes to $OUT.
set -uo pipefail
source .device/setup.sh >/dev/null 2>&1 || exit 1
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/extra .device/extra_whl/*.whl
scripts="$PWD/benchmarks_results/s31_scripts"
export PYTHONPATH=/tmp/extra:$scripts:$PYTHONPATH
export FINISHED_TESTS="$PWD/benchmarks_results/h200_s30/callD/both.txt"
site=$(python3 -c "import thunder, os; print(os.path.dirname(thunder.__file__))")
ln -sfn "$PWD/thunder/fastpath" "$site/fastpath"
export PYTHONUNBUFFERED=1
sha1sum thunder/fastpath/*.py | tee "$OUT/code_sha1.log"
uptime | tee "$OUT/uptime.log"
# How many tests are left to compare (session 30: 821 in all under -k cuda).
python3 -m pytest --collect-only -q -p no:cacheprovider -W ignore -p deselect_finished --pyargs thunder.tests.test_grad \
  -k cuda 2>&1 | tail -n 1 | sed 's/^/without session 30 call D'"'"'s: /' | tee "$OUT/selection.log"
LIMIT=${LIMIT:-400}
run() {  # $1: on|off, $2: cores
  mkdir -p "$OUT/test_grad_$1"
  (cd "$OUT/test_grad_$1" && THUNDER_FASTPATH=$([ "$1" = on ] && echo 1 || echo 0) timeout "$LIMIT" taskset -c "$2" \
     python3 -m pytest -n 7 -v -p no:cacheprovider -W ignore -W error::thunder.fastpath.cache_hit.GuardBuildWarning \
     -p thunder.fastpath -p deselect_finished --pyargs thunder.tests.test_grad -k cuda > "$1.log" 2>&1)
  grep -oE "(PASSED|FAILED|SKIPPED|XFAIL|XPASS|ERROR) ::[^ ]+" "$OUT/test_grad_$1/$1.log" | awk '{print $2, $1}' \
    | sort > "$OUT/test_grad_$1/outcomes.txt"
}
run on 0-7 & run off 8-15 & wait
uptime | tee -a "$OUT/uptime.log"
for m in on off; do echo "$m: $(wc -l < "$OUT/test_grad_$m/outcomes.txt") tests finished; $(tail -n 1 "$OUT/test_grad_$m/$m.log")"; done
join "$OUT/test_grad_on/outcomes.txt" "$OUT/test_grad_off/outcomes.txt" > "$OUT/both.txt"
echo "finished in both runs: $(wc -l < "$OUT/both.txt"); outcome counts (on off):"
awk '{print $2, $3}' "$OUT/both.txt" | sort | uniq -c
echo "tests whose outcome differs:"; awk '$2 != $3' "$OUT/both.txt"
echo "finished in both, in session 30's call D or here: $(cat "$FINISHED_TESTS" "$OUT/both.txt" | awk '{print $1}' | sort -u | wc -l)"
