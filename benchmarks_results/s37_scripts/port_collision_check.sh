# Session 37, this CPU: the H200's test_recipes comparison (call A) failed two tests only with the fast path on,
# both with EADDRINUSE: the on and off runs, going at once, listened on the same fixed ports. Checks that
# .ci/compare_shipped_suites now says so, and that one run at a time (SHIPPED_ONE_AT_A_TIME=1) passes.
set -uo pipefail
cd "$(dirname "$0")/../.."
export PYTHONPATH="$PWD/benchmarks_results/s37_scripts/portpkg"
SHIPPED_LOGS=/tmp/s37_portpkg_at_once bash .ci/compare_shipped_suites portpkg.test_fixed_port
echo "exit $? (expected 1, with the hint)"
SHIPPED_ONE_AT_A_TIME=1 SHIPPED_LOGS=/tmp/s37_portpkg_one bash .ci/compare_shipped_suites portpkg.test_fixed_port
echo "exit $? (expected 0)"
