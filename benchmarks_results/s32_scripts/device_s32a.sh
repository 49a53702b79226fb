# Session 32, device call A (nvidia-h200): issue 3's six shipped suites with -k cuda, and test_nvfuser_remat (never
# compared before), at the current code (last compared on the H200 in sessions 8 and 12, before session 29's
# autograd.py). Fast path on (cores 0-7) and off (cores 8-15) at once, each under pytest-xdist with 7 workers,
# stopped after LIMIT s; per-test outcomes from the -v lines, as in device_s31a.sh. FINISHED_TESTS (optional): a
# list of tests already compared (an earlier call's both.txt), left out by s31_scripts/deselect_finished.py.
# MODULES and K select other shipped tests: MODULES=thunder.tests.test_grad runs what device_s30d.sh and
# device_s31a.sh ran. Needs the pytest-xdist and execnet wheels in .device/extra_whl (and fdm for test_grad).
# Carry [".device"]; writes to $OUT.
set -uo pipefail
source .device/setup.sh >/dev/null 2>&1 || exit 1
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/extra .device/extra_whl/*.whl
export PYTHONPATH=/tmp/extra:$PWD/benchmarks_results/s31_scripts:$PYTHONPATH
site=$(python3 -c "import thunder, os; print(os.path.dirname(thunder.__file__))")
# rootdir at site-packages: test ids then carry their module's path (thunder/tests/test_core.py::...), so that
# tests of the same name in two modules stay apart.
rootdir=$(dirname "$site")
ln -sfn "$PWD/thunder/fastpath" "$site/fastpath"
export PYTHONUNBUFFERED=1
sha1sum thunder/fastpath/*.py | tee "$OUT/code_sha1.log"
uptime | tee "$OUT/uptime.log"
MODULES=${MODULES:-"thunder.tests.test_core thunder.tests.test_update_aliases thunder.tests.test_inplace_copy
 thunder.tests.test_autocast thunder.tests.test_transforms thunder.tests.test_jit_general thunder.tests.test_nvfuser_remat"}
K=${K:-cuda}
python3 -m pytest --collect-only -q -p no:cacheprovider -W ignore -p deselect_finished --pyargs $MODULES -k "$K" \
  2>&1 | tail -n 1 | tee "$OUT/selection.log"
LIMIT=${LIMIT:-450}
run() {  # $1: on|off, $2: cores
  mkdir -p "$OUT/$1"
  (cd "$OUT/$1" && THUNDER_FASTPATH=$([ "$1" = on ] && echo 1 || echo 0) timeout "$LIMIT" taskset -c "$2" \
     python3 -m pytest -n 7 -v -p no:cacheprovider -W ignore -W error::thunder.fastpath.cache_hit.GuardBuildWarning \
     --rootdir "$rootdir" -p thunder.fastpath -p deselect_finished --pyargs $MODULES -k "$K" > "$1.log" 2>&1)
  # The workers' progress lines only ("[gwN] ..."): the short summary repeats each failure with dots in its name.
  grep -E "^\[gw[0-9]+\]" "$OUT/$1/$1.log" | grep -oE "(PASSED|FAILED|SKIPPED|XFAIL|XPASS|ERROR) [^ ]*::[^ ]+" \
    | awk '{print $2, $1}' | sort > "$OUT/$1/outcomes.txt"
}
run on 0-7 & run off 8-15 & wait
uptime | tee -a "$OUT/uptime.log"
for m in on off; do echo "$m: $(wc -l < "$OUT/$m/outcomes.txt") tests finished; $(tail -n 1 "$OUT/$m/$m.log")"; done
join "$OUT/on/outcomes.txt" "$OUT/off/outcomes.txt" > "$OUT/both.txt"
echo "finished in both runs: $(wc -l < "$OUT/both.txt"); outcome counts (on off):"
awk '{print $2, $3}' "$OUT/both.txt" | sort | uniq -c
echo "tests whose outcome differs:"; awk '$2 != $3' "$OUT/both.txt"
