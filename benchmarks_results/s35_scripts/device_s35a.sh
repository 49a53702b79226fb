# Session 35, device call A (nvidia-h200): test_overhead.py whole at c3aa883's test code (the two lifetime tests
# refactored onto one cycle_collector_off() context manager after session 34's H200 run), with pytest-xdist on
# cores 0-11; then #1657 alone four times (session 30's form: 31 repeats, pinned to core 5), nothing else running.
# Carry [".device"]; writes to $OUT.
set -uo pipefail
source .device/setup.sh >/dev/null 2>&1 || exit 1
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/extra .device/extra_whl/*.whl
export PYTHONPATH=/tmp/extra:$PYTHONPATH
site=$(python3 -c "import thunder, os; print(os.path.dirname(thunder.__file__))")
ln -sfn "$PWD/thunder/fastpath" "$site/fastpath"
export PYTHONUNBUFFERED=1
sha1sum thunder/fastpath/*.py thunder/tests/test_overhead.py thunder/benchmarks/small_graph.py | tee "$OUT/code_sha1.log"
uptime | tee "$OUT/uptime.log"
timeout "${LIMIT:-300}" taskset -c 0-11 python3 -m pytest -n 8 -v -p no:cacheprovider -W ignore -rfs \
   thunder/tests/test_overhead.py > "$OUT/test_overhead_cuda.log" 2>&1
echo "== test_overhead (exit $?)"; tail -n 2 "$OUT/test_overhead_cuda.log"
grep -oE "(PASSED|FAILED|SKIPPED|ERROR) [^ ]*(freed_at_once|cycle)[^ ]*" "$OUT/test_overhead_cuda.log" | sort -k2
uptime | tee -a "$OUT/uptime.log"
only() {
  timeout 100 taskset -c 5 python3 thunder/benchmarks/small_graph.py --device cuda --cases issue1657 --repeats 31 \
    2>&1 | grep -v -i warn > "$OUT/issue1657_only_$1.log"
  uptime | tee -a "$OUT/uptime.log"
}
for i in 1 2 3 4; do only $i; done
grep -h -E "^issue1657 .*(eager|fast|fec|computation)" "$OUT"/issue1657_only_*.log
