# Session 24: does opinfo_differential.py find a wrong result? A guard that ignores the values of Python numbers
# under "constant values" (guard.py's number check made always true), on six ops with number arguments; then the
# unbroken code on the same ops. Restores guard.py. Run from the repository root; log: opinfo_mutant.log.
set -u
cp thunder/fastpath/guard.py /tmp/guard_unbroken.py
trap 'cp /tmp/guard_unbroken.py thunder/fastpath/guard.py' EXIT
sed -i 's/and {name} == {self.constant(value)}")/and ({name} == {self.constant(value)} or True)")/' thunder/fastpath/guard.py
grep -c 'or True)")' thunder/fastpath/guard.py
echo "== numbers ignored"
.venv/bin/python benchmarks_results/s24_scripts/opinfo_differential.py --ops unfold,clamp,full,pow,add,narrow 2>&1 | grep -E "^(ok|DIFF|SETUP|summ)"
cp /tmp/guard_unbroken.py thunder/fastpath/guard.py
echo "== unbroken"
.venv/bin/python benchmarks_results/s24_scripts/opinfo_differential.py --ops unfold,clamp,full,pow,add,narrow 2>&1 | grep -E "^(ok|DIFF|SETUP|summ)"
