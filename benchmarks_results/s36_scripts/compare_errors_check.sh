# Session 36, this CPU: does .ci/compare_shipped_suites catch a test that errors (here in its teardown) only with the
# fast path on? errpkg/ holds one such test and one that passes. Until session 36 the script compared only FAILED
# lines, and this check exited 0; it must now exit 1 and name the test. (Call A's 696 teardown errors on the H200
# occurred both ways, so the old form missed nothing there.)
set -uo pipefail
cd "$(dirname "$0")/../.."
PYTHONPATH="$PWD/benchmarks_results/s36_scripts/errpkg" SHIPPED_LOGS=/tmp/s36_errpkg bash .ci/compare_shipped_suites errpkg.test_teardown
echo "exit $? (expected 1)"
