# Ran in session 27 at or before cbdedff; the GlobalStateGuard parts need that code (later commits dropped it).
# Session 27: the two fallback tests must fail when their fallback is taken out. Edits guard.py in place, runs the
# test, and restores the file from git (commit first: the trap runs `git checkout` on guard.py).
# Usage: bash benchmarks_results/s27_scripts/fallback_mutations.sh
set -uo pipefail
cd "$(dirname "$0")/../.."
trap 'git checkout -q -- thunder/fastpath/guard.py' EXIT
run() { .venv/bin/python -m pytest -q -p no:cacheprovider -p no:warnings thunder/tests/test_overhead.py -k "$1" 2>&1 | tail -n 1; }
git log --oneline -1
echo "== unmutated"; run "without_global_state or without_tensor_guards"
echo "== exact state checks dropped without GlobalStateGuard (expect 1 failed)"
sed -i 's/^        lines = exact$/        lines = []/' thunder/fastpath/guard.py
git diff --stat thunder/fastpath/guard.py | tail -n 1; run without_global_state
git checkout -q -- thunder/fastpath/guard.py
echo "== no Unsupported without TensorGuards (expect 1 failed: the CPU case)"
sed -i '/if TensorGuards is None:/,+1d' thunder/fastpath/guard.py
git diff --stat thunder/fastpath/guard.py | tail -n 1; run without_tensor_guards
