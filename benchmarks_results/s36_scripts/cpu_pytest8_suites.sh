# Session 36, this CPU: four lightning-thunder modules that had never been compared with the fast path on and off,
# because they do not collect under pytest 9 (`parametrize("device,", ...)`) and two of them import einops:
# test_auto_register_torchops, test_einops, test_triton_ce, test_fa3_executor. Runs them under pytest 8.4.2 with
# einops 0.8.2 (installed into /tmp/p8site, first on PYTHONPATH), fast path on against off, then once more with the
# fast path on and .ci/fastpath_site's report of what each fast callable served. Their CUDA tests: device_s36c.sh.
set -uo pipefail
cd "$(dirname "$0")/../.."
logs=benchmarks_results/s36_scripts/logs
if [ ! -d /tmp/p8site/_pytest ]; then
  .venv/bin/pip download -q "pytest==8.4.2" einops==0.8.2 --no-deps -d /tmp/p8whl
  .venv/bin/pip install -q --no-deps --target /tmp/p8site /tmp/p8whl/pytest-8.4.2-*.whl /tmp/p8whl/einops-0.8.2-*.whl
fi
export PYTHONPATH=/tmp/p8site
MODULES="thunder.tests.test_auto_register_torchops thunder.tests.test_einops thunder.tests.test_triton_ce thunder.tests.test_fa3_executor"
rm -rf /tmp/s36_p8; SHIPPED_LOGS=/tmp/s36_p8 bash .ci/compare_shipped_suites $MODULES > "$logs/pytest8_suites_compare.log" 2>&1
echo "exit $?" >> "$logs/pytest8_suites_compare.log"
for mode in on off; do cp /tmp/s36_p8/$mode.log "$logs/pytest8_suites_$mode.log"; done
rm -f /tmp/s36_p8_report.jsonl
(cd /tmp && PYTHONPATH="$OLDPWD/.ci/fastpath_site:$PYTHONPATH" FASTPATH_REPORT=/tmp/s36_p8_report.jsonl THUNDER_FASTPATH=1 \
  "$OLDPWD/.venv/bin/python" -m pytest -q -p no:cacheprovider -W ignore -W error::thunder.fastpath.cache_hit.GuardBuildWarning \
  --pyargs $MODULES) > "$logs/pytest8_suites_on_reported.log" 2>&1
echo "exit $?" >> "$logs/pytest8_suites_on_reported.log"
python3 - /tmp/s36_p8_report.jsonl > "$logs/pytest8_suites_report_summary.log" <<'PY'
import collections, json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
print("fast callables reported:", len(rows))
print("calls", sum(r["calls"] for r in rows), "hits", sum(r["hits"] for r in rows), "misses", sum(r["misses"] for r in rows))
print("callables with a hit:", sum(r["hits"] > 0 for r in rows), "; with a guarded entry:", sum(r["guarded_entries"] > 0 for r in rows))
print("reasons entries kept upstream's path:", collections.Counter(u for r in rows for u in r["unsupported"]).most_common(8))
PY
