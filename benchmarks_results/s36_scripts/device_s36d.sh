# Session 36, device call D (nvidia-h200): lightning-thunder's test_sdpaex_executor (14 CUDA tests, among them SDPA
# under autocast) and test_apex_cross_entropy_executor, fast path on and off: like the four modules of call C, they
# parametrize "device," and collect only under pytest 8, and no session had run them. pytest 8.4.2 from
# .device/p8_whl, gpu_mem_limit_option.py as in call C, .ci/fastpath_site's report. Carry [".device"]; writes to $OUT.
set -uo pipefail
source .device/setup.sh >/dev/null 2>&1 || exit 1
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/extra .device/extra_whl/*.whl
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/p8 .device/p8_whl/*.whl
export PYTHONPATH=/tmp/p8:/tmp/extra:$PWD/benchmarks_results/s36_scripts:$PYTHONPATH
site=$(python3 -c "import thunder, os; print(os.path.dirname(thunder.__file__))")
ln -sfn "$PWD/thunder/fastpath" "$site/fastpath"
export PYTHONUNBUFFERED=1
{ sha1sum thunder/fastpath/*.py .ci/compare_shipped_suites; uptime; } 2>&1 | tee "$OUT/versions_and_uptime.log"
rm -f "$OUT/fastpath_report.jsonl"
PYTHONPATH="$PWD/.ci/fastpath_site:$PYTHONPATH" FASTPATH_REPORT="$OUT/fastpath_report.jsonl" \
  PYTEST_ADDOPTS="-p gpu_mem_limit_option" SHIPPED_LOGS="$OUT/shipped" PY=$(command -v python3) timeout "${LIMIT:-240}" \
  bash .ci/compare_shipped_suites thunder.tests.test_sdpaex_executor thunder.tests.test_apex_cross_entropy_executor \
  2>&1 | tee "$OUT/shipped.log"
echo "== exit ${PIPESTATUS[0]}" | tee -a "$OUT/shipped.log"
python3 - "$OUT/fastpath_report.jsonl" <<'PY' 2>&1 | tee -a "$OUT/shipped.log"
import collections, json, sys
try:
    rows = [json.loads(line) for line in open(sys.argv[1])]
except FileNotFoundError:
    rows = []
print("fast callables reported:", len(rows), "| calls", sum(r["calls"] for r in rows), "hits", sum(r["hits"] for r in rows),
      "misses", sum(r["misses"] for r in rows), "| with a guarded entry:", sum(r["guarded_entries"] > 0 for r in rows))
print("reasons entries kept upstream's path:", collections.Counter(u for r in rows for u in r["unsupported"]).most_common(8))
PY
rm -f "$OUT/fastpath_report.jsonl"
uptime | tee -a "$OUT/versions_and_uptime.log"
