# Session 27, after GlobalStateGuard was dropped (8623d9c): each state line of a guard (grad mode, autocast, default
# dtype) and the TensorGuards fallback must be needed by some test. Edits guard.py in place, runs test_overhead.py's
# state tests, and restores the file from git (commit first: the trap runs `git checkout` on guard.py).
# Usage: bash benchmarks_results/s27_scripts/state_check_mutations.sh
set -uo pipefail
cd "$(dirname "$0")/../.."
trap 'git checkout -q -- thunder/fastpath/guard.py' EXIT
run() {
  .venv/bin/python -m pytest -q -p no:cacheprovider -p no:warnings thunder/tests/test_overhead.py -k "$1" 2>&1 | tail -n 1
}
mutate() {  # $1: what, $2: sed expression, $3: tests
  echo "== $1"
  sed -i "$2" thunder/fastpath/guard.py
  git diff --stat thunder/fastpath/guard.py | tail -n 1
  run "$3"
  git checkout -q -- thunder/fastpath/guard.py
}
git log --oneline -1
tests="grad_mode or default_dtype or autocast or without_tensor_guards"
echo "== unmutated"; run "$tests"
# Each state line becomes `pass` (its `if` stays valid Python).
mutate "grad-mode line dropped" 's/^\( *\)lines.append(f"if __is_grad_enabled()/\1pass  # /' "$tests"
mutate "autocast line dropped" 's/^\( *\)lines.append("if __is_any_autocast_enabled()/\1pass  # /' "$tests"
mutate "default-dtype line dropped" 's/^\( *\)lines.append(f"if __get_default_dtype()/\1pass  # /' "$tests"
mutate "no Unsupported without TensorGuards" '/if TensorGuards is None:/,+1d' "$tests"
