#!/usr/bin/env bash
# The guard's fast alias check with storage objects compared (torch._C._storage_address) instead of upstream's data
# pointers: which tests fail. Restores guard.py afterwards; run from the checkout's root with a clean guard.py.
set -u
git diff --quiet thunder/fastpath/guard.py || { echo "guard.py has changes"; exit 1; }
sed -i 's/ptrs = \[f"{name}.untyped_storage().data_ptr()" for name in storages\]/ptrs = [f"torch._C._storage_address({name})" for name in storages]/' thunder/fastpath/guard.py
echo "== mutant"; git diff thunder/fastpath/guard.py | grep '^[-+] '
.venv/bin/python -m pytest -q -p no:cacheprovider -W ignore thunder/tests/test_overhead.py -k "alias or storage or empty" 2>&1 | grep -E "passed|failed|FAILED"
git checkout -q thunder/fastpath/guard.py
echo "== unbroken"
.venv/bin/python -m pytest -q -p no:cacheprovider -W ignore thunder/tests/test_overhead.py -k "alias or storage or empty" 2>&1 | grep -E "passed|failed|FAILED"
