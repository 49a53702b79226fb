# Ran in session 27 at or before cbdedff; the GlobalStateGuard parts need that code (later commits dropped it).
# Session 27: issue 3's six shipped suites with the fast path on as on a torch without GlobalStateGuard, and without
# both dynamo guards (no_dynamo_guards.py), against the fast path off; prints the tests that fail only with it on.
# Usage: bash benchmarks_results/s27_scripts/fallback_suites.sh   (from the checkout; logs in $LOGS)
set -uo pipefail
cd "$(dirname "$0")/../.."
PY=$PWD/.venv/bin/python
LOGS=${LOGS:-$(mktemp -d)}; mkdir -p "$LOGS"
SUITES="thunder.tests.test_core thunder.tests.test_jit_general thunder.tests.test_update_aliases thunder.tests.test_inplace_copy thunder.tests.test_autocast thunder.tests.test_transforms"
run() {  # $1: name, $2: THUNDER_FASTPATH, $3: NO_DYNAMO_GUARDS
  (cd "$LOGS" && THUNDER_FASTPATH=$2 NO_DYNAMO_GUARDS=$3 PYTHONPATH=$OLDPWD/benchmarks_results/s27_scripts \
     "$PY" -m pytest -q -rf -p no:cacheprovider -W ignore -W error::thunder.fastpath.cache_hit.GuardBuildWarning \
     -p no_dynamo_guards --pyargs $SUITES > "$LOGS/$1.log" 2>&1)
  grep -E '^FAILED ' "$LOGS/$1.log" | sed 's/ - .*//' | sort -u > "$LOGS/$1.failed"
  echo "$1: $(tail -n 1 "$LOGS/$1.log")"
}
git log --oneline -1
run off 0 "" & run no_global_state_guard 1 "" & wait
run no_dynamo_guards 1 all
for mode in no_global_state_guard no_dynamo_guards; do
  echo "failing only with $mode: $(comm -23 "$LOGS/$mode.failed" "$LOGS/off.failed" | tr '\n' ' ')"
done
