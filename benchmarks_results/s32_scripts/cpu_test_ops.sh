# Session 32, this CPU: lightning-thunder's shipped test_ops (never compared before), fast path on against off, then
# once more with the fast path on and .ci/fastpath_site's report of what each fast callable served. These are the
# commands as they were run by hand (the two pytest runs in the background, one after the other), gathered here.
set -uo pipefail
cd "$(dirname "$0")/../.."
logs=benchmarks_results/s32_scripts/logs
SHIPPED_LOGS=/tmp/s32_test_ops bash .ci/compare_shipped_suites thunder.tests.test_ops > "$logs/test_ops_compare.log" 2>&1
echo "exit $?" >> "$logs/test_ops_compare.log"
cp /tmp/s32_test_ops/on.log "$logs/test_ops_on.log"; cp /tmp/s32_test_ops/off.log "$logs/test_ops_off.log"
rm -f /tmp/s32_test_ops_report.jsonl
(cd /tmp && PYTHONPATH="$OLDPWD/.ci/fastpath_site" FASTPATH_REPORT=/tmp/s32_test_ops_report.jsonl THUNDER_FASTPATH=1 \
  "$OLDPWD/.venv/bin/python" -m pytest -q -p no:cacheprovider -W ignore -W error::thunder.fastpath.cache_hit.GuardBuildWarning \
  --pyargs thunder.tests.test_ops) > "$logs/test_ops_on_reported.log" 2>&1
echo "exit $?" >> "$logs/test_ops_on_reported.log"
# The summary: as .ci/gpu_run.sh's `distributed` phase prints it, plus how many callables had a hit or a guarded entry.
python3 - /tmp/s32_test_ops_report.jsonl > "$logs/test_ops_on_report_summary.log" <<'PY'
import collections, json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
print("fast callables reported:", len(rows))
print("calls", sum(r["calls"] for r in rows), "hits", sum(r["hits"] for r in rows), "misses", sum(r["misses"] for r in rows))
print("callables with a hit:", sum(r["hits"] > 0 for r in rows), "; with a guarded entry:", sum(r["guarded_entries"] > 0 for r in rows))
print("reasons entries kept upstream's path:", collections.Counter(u for r in rows for u in r["unsupported"]).most_common(8))
PY
