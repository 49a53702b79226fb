# Session 36, this CPU: test_bools_ints_and_signed_zeros_as_upstream against a mutant of guard.py whose number check
# uses isinstance instead of the exact type (True, a bool, is an int). The new test must fail on it; the older
# test_constant_values_numbers_and_strings (2.0 against 2) passes on it. Applies the mutant, runs, reverts.
set -uo pipefail
cd "$(dirname "$0")/../.."
cp thunder/fastpath/guard.py /tmp/guard.py.unmutated
trap 'cp /tmp/guard.py.unmutated thunder/fastpath/guard.py' EXIT
run() { .venv/bin/python -m pytest -q -p no:cacheprovider -W ignore thunder/tests/test_overhead.py \
          -k "bools_ints or constant_values_numbers" 2>&1 | grep -E "^(FAILED|E +AssertionError)|[0-9]+ (passed|failed)"; }
echo "== unmutated"; run
sed -i 's/self.miss_unless(f"type({name}) is {typ} and {name} == {self.constant(value)}")/self.miss_unless(f"isinstance({name}, {typ}) and {name} == {self.constant(value)}")/' thunder/fastpath/guard.py
echo "== mutant: $(git diff --stat thunder/fastpath/guard.py | head -1)"; run
