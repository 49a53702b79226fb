#!/usr/bin/env bash
# The hit's grad-mode switch left off when the computation raises (restored on success only): which tests fail.
# Restores cache_hit.py afterwards; run from the checkout's root with a clean cache_hit.py.
set -u
git diff --quiet thunder/fastpath/cache_hit.py || { echo "cache_hit.py has changes"; exit 1; }
sed -i "s/\"    __set_grad_enabled(True)\"/\"    __set_grad_enabled(__import__('sys').exc_info()[0] is None)\"/" thunder/fastpath/cache_hit.py
echo "== mutant"; git diff thunder/fastpath/cache_hit.py | grep '^[-+] '
.venv/bin/python -m pytest -q -p no:cacheprovider -W ignore thunder/tests/test_overhead.py 2>&1 | grep -E "passed|failed|FAILED"
git checkout -q thunder/fastpath/cache_hit.py
echo "== unbroken"
.venv/bin/python -m pytest -q -p no:cacheprovider -W ignore thunder/tests/test_overhead.py -k "raises_on_a_hit or grad" 2>&1 | grep -E "passed|failed|FAILED"
