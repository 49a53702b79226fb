#!/usr/bin/env bash
# CacheHit keeping the arguments and outputs of the call its guard was built from: which tests fail. Restores
# cache_hit.py afterwards; run from the checkout's root with a clean cache_hit.py.
set -u
git diff --quiet thunder/fastpath/cache_hit.py || { echo "cache_hit.py has changes"; exit 1; }
sed -i 's/        self.entry = entry$/        self.entry = entry\n        self.kept = (args, kwargs, outputs)/' thunder/fastpath/cache_hit.py
sed -i 's/"entry_layout", "call", "source")/"entry_layout", "call", "source", "kept")/' thunder/fastpath/cache_hit.py
echo "== mutant"; git diff thunder/fastpath/cache_hit.py | grep '^[-+] '
.venv/bin/python -m pytest -q -p no:cacheprovider -W ignore thunder/tests/test_overhead.py -k "alive or collected" 2>&1 | grep -E "passed|failed|FAILED"
git checkout -q thunder/fastpath/cache_hit.py
echo "== unbroken"
.venv/bin/python -m pytest -q -p no:cacheprovider -W ignore thunder/tests/test_overhead.py -k "alive or collected" 2>&1 | grep -E "passed|failed|FAILED"
