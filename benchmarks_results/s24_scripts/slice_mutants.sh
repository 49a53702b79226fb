# Session 24: test_slices_passed_as_arguments against two broken guards: slices left to upstream (the guard before
# this session: check_slice_value unsupported) and slices compared by type only. Restores guard.py.
set -u
cp thunder/fastpath/guard.py /tmp/guard_unbroken.py
trap 'cp /tmp/guard_unbroken.py thunder/fastpath/guard.py' EXIT
run() { .venv/bin/python -m pytest -q -p no:cacheprovider -W ignore thunder/tests/test_overhead.py -k slices 2>&1 | grep -E "^E +[A-Za-z]*Error|[0-9]+ (passed|failed)" | head -3; }
echo "== unbroken"; run
sed -i 's/                     "check_slice_value"):/                     ):/' thunder/fastpath/guard.py
echo "== slices unsupported ($(grep -c '"check_slice_value"):' thunder/fastpath/guard.py) left)"; run
cp /tmp/guard_unbroken.py thunder/fastpath/guard.py
sed -i 's/f"type({name}) is slice and {name} == {self.constant(args\[1\])}"/f"type({name}) is slice"/' thunder/fastpath/guard.py
echo "== type only ($(grep -c 'is slice"' thunder/fastpath/guard.py) changed)"; run
